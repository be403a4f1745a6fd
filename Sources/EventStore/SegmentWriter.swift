import DurableFiles
#if canImport(Glibc)
import Glibc
#endif

/// The open segment and its rotation, confined to the writer thread. Each append is one group
/// commit: its lines and a commit record in one write, then one fdatasync; a SIGKILL inside the
/// write leaves lines no record covers, which readers skip and start-up repair cuts. Appends are
/// all-or-nothing: after a failed write or fdatasync the file is cut back to its last committed
/// offset and abandoned (the page cache may hold data the disk never got: a later fsync success
/// would lie), and the next append opens a new segment.
final class SegmentWriter {
    private struct Open {
        let fd: Int32
        let path: String
        let day: String
        var committed: Int
        var keys: [DedupKey]
        var minMillis: Int64
        var maxMillis: Int64
    }

    let layout: SegmentLayout
    let maxBytes: Int
    let maxAgeMillis: Int64
    let io: SegmentSyscalls
    private var nextNumber: Int
    private var current: Open?

    init(layout: SegmentLayout, maxBytes: Int, maxAgeMillis: Int64, io: SegmentSyscalls, nextNumber: Int) {
        self.layout = layout
        self.maxBytes = maxBytes
        self.maxAgeMillis = maxAgeMillis
        self.io = io
        self.nextNumber = nextNumber
    }

    /// Appends `bytes` (the `lineCount` whole lines of the batches `keys`) and their commit
    /// record durably; returns the fdatasync duration. `bytes` gets the record appended.
    func append(_ bytes: inout [UInt8], lineCount: Int, keys: [DedupKey], now: Int64) throws(IOFailure) -> Double {
        CommitRecord(lines: lineCount, bytes: bytes.count).append(to: &bytes)
        let day = EventTime.day(ms: now)
        if let open = current, !open.keys.isEmpty,
           open.day != day || open.committed + bytes.count > maxBytes || now >= open.minMillis + maxAgeMillis {
            seal()
        }
        if current == nil { current = try openSegment(day: day) }
        let segment = current!
        let writeError = bytes.withUnsafeBytes { POSIX.writeAll(segment.fd, $0, io: io) }
        if let e = writeError { abandon(); throw IOFailure(path: segment.path, operation: "write", code: e) }
        let started = POSIX.monotonicSeconds()
        guard io.fdatasync(segment.fd) == 0 else {
            let e = errno
            abandon()
            throw IOFailure(path: segment.path, operation: "fdatasync", code: e)
        }
        let elapsed = POSIX.monotonicSeconds() - started
        current!.committed += bytes.count
        current!.keys.append(contentsOf: keys)
        current!.minMillis = min(current!.minMillis, now)
        current!.maxMillis = max(current!.maxMillis, now)
        return elapsed
    }

    /// When the open segment reaches `maxAgeMillis` (counted from its first commit; an empty
    /// segment never ages, so an idle server does not churn files).
    var ageDeadline: Int64? {
        guard let open = current, !open.keys.isEmpty else { return nil }
        return open.minMillis + maxAgeMillis
    }

    /// Seals an aged segment and opens its successor at once, even with nothing to write: a
    /// newer segment is what tells `events ship` that this one is sealed (SPEC §9.1). If the
    /// successor cannot be created, the next append tries again (and fails its batches).
    func rotateIfAged(now: Int64) {
        guard let deadline = ageDeadline, now >= deadline else { return }
        seal()
        // Ignored on purpose: the next append retries the open and fails its batches (doc above).
        current = try? openSegment(day: EventTime.day(ms: now))
    }

    /// Closes the open segment and writes its index. A failed index is harmless: start-up
    /// scans any own segment that has none.
    func seal() {
        guard let open = current else { return }
        current = nil
        close(open.fd)
        guard !open.keys.isEmpty else { unlink(open.path); return }
        let index = SegmentIndexFile(keys: open.keys, minMillis: open.minMillis, maxMillis: open.maxMillis)
        // Ignored on purpose: a segment without its index is rescanned at start-up (doc above).
        try? DurableFile.replace(open.path + ".idx", with: index.encoded())
    }

    private func abandon() {
        guard let open = current else { return }
        // If even this fails, leave the segment without its index: start-up repair then cuts it
        // back to its last commit record.
        guard ftruncate(open.fd, off_t(open.committed)) == 0 else {
            current = nil
            close(open.fd)
            return
        }
        seal()
    }

    private func openSegment(day: String) throws(IOFailure) -> Open {
        let dir = layout.dayDirectory(day)
        if try DurableFile.makeDirectories(dir) { try DurableFile.syncDirectory(layout.root) }
        while true {
            let path = layout.segmentPath(day: day, number: nextNumber)
            nextNumber += 1
            let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0o644)
            if fd < 0 {
                if errno == EEXIST { continue }
                throw IOFailure(path: path, operation: "create", code: errno)
            }
            do throws(IOFailure) {
                try DurableFile.syncDirectory(dir)
                // Durable with the first group's fdatasync; until then the segment has no commit.
                if let e = CommitRecord.openingBytes.withUnsafeBytes({ POSIX.writeAll(fd, $0, io: io) }) {
                    throw IOFailure(path: path, operation: "write", code: e)
                }
            } catch {
                close(fd)
                unlink(path)
                throw error
            }
            return Open(fd: fd, path: path, day: day, committed: CommitRecord.openingBytes.count, keys: [],
                        minMillis: .max, maxMillis: .min)
        }
    }
}

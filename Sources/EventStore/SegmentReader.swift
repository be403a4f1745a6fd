import DurableFiles
import JSONSupport
#if canImport(Glibc)
import Glibc
#endif

/// Reads the committed lines of one segment — the single reader of segments: export, stats,
/// start-up repair, and tailers that remember where they stopped (the guard, shipping).
///
/// A line is committed once a commit record (`CommitRecord`) follows it and that record matches
/// the lines since the previous one (count and bytes). Lines after the last record are a write
/// in progress, or one a crash cut short: not yielded, and the offset does not pass them. A
/// group whose record does not match (a page lost to power failure, an edited file) is skipped
/// and counted. A segment that does not start with the opening record predates commit records:
/// each complete line counts, a torn final line does not.
public struct SegmentReader {
    public let path: String

    public init(path: String) { self.path = path }

    public struct Progress: Equatable, Sendable {
        /// Where the committed data read ends: the next call starts here, and an owner
        /// repairing the segment truncates it here.
        public var offset: Int
        /// Committed lines yielded.
        public var lines = 0
        /// Lines of groups whose commit record does not match them, not yielded.
        public var skippedLines = 0
    }

    /// Calls `body` with each committed line (without its newline) from `offset` — 0, or a
    /// `Progress.offset` an earlier call returned for this file — in file order, holding at
    /// most one commit group in memory. A file shorter than `offset` (a group cut back after a
    /// failed fdatasync) yields nothing.
    public func forEachCommittedLine(from offset: Int = 0, _ body: (ArraySlice<UInt8>) throws -> Void) throws -> Progress {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw IOFailure(path: path, operation: "open", code: errno) }
        defer { close(fd) }
        var progress = Progress(offset: offset)
        guard try startsWithOpeningRecord(fd) else {
            try forEachLine(fd, from: offset) { line, end in
                try body(line)
                progress.lines += 1
                progress.offset = end
            }
            return progress
        }
        var group: [UInt8] = []
        var lineEnds: [Int] = []
        try forEachLine(fd, from: offset) { line, end in
            guard let record = CommitRecord(line: line) else {
                group.append(contentsOf: line)
                group.append(0x0A)
                lineEnds.append(group.count - 1)
                return
            }
            if record == CommitRecord(lines: lineEnds.count, bytes: group.count) {
                var start = 0
                for lineEnd in lineEnds {
                    try body(group[start..<lineEnd])
                    start = lineEnd + 1
                }
                progress.lines += lineEnds.count
            } else {
                progress.skippedLines += lineEnds.count
            }
            group.removeAll(keepingCapacity: true)
            lineEnds.removeAll(keepingCapacity: true)
            progress.offset = end
        }
        return progress
    }

    private func startsWithOpeningRecord(_ fd: Int32) throws -> Bool {
        let expected = CommitRecord.openingBytes
        var head = [UInt8](repeating: 0, count: expected.count)
        var got = 0
        while got < head.count {
            let n = head.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + got, $0.count - got, off_t(got)) }
            if n < 0 {
                if errno == EINTR { continue }
                throw IOFailure(path: path, operation: "read", code: errno)
            }
            if n == 0 { return false }
            got += n
        }
        return head == expected
    }

    /// Calls `body` with each complete line from `offset` and the offset just past its newline,
    /// in constant memory (one read buffer plus the line being assembled).
    private func forEachLine(_ fd: Int32, from offset: Int, _ body: (ArraySlice<UInt8>, Int) throws -> Void) throws {
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        var pending: [UInt8] = []
        var position = offset
        var complete = offset
        while true {
            let n = chunk.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, off_t(position)) }
            if n < 0 {
                if errno == EINTR { continue }
                throw IOFailure(path: path, operation: "read", code: errno)
            }
            if n == 0 { return }
            position += n
            var lineStart = 0
            for i in 0..<n where chunk[i] == 0x0A {
                let line: ArraySlice<UInt8>
                if pending.isEmpty {
                    line = chunk[lineStart..<i]
                } else {
                    pending.append(contentsOf: chunk[lineStart..<i])
                    line = pending[...]
                }
                complete += line.count + 1
                try body(line, complete)
                pending.removeAll(keepingCapacity: true)
                lineStart = i + 1
            }
            pending.append(contentsOf: chunk[lineStart..<n])
        }
    }
}

/// One stored line parsed with the strict reader, with access to each field's raw bytes.
public struct StoredEvent {
    public let bytes: [UInt8]
    public let root: JSONNode

    public init?(line: ArraySlice<UInt8>) {
        let bytes = Array(line)
        // Not JSON is the nil the caller counts as a skipped line.
        guard let node = try? JSONReader.parse(bytes), case .object = node.value else { return nil }
        self.bytes = bytes
        root = node
    }

    public subscript(field: String) -> JSONValue? { root.value[field] }

    /// The JSON text of a field's value exactly as stored.
    public func rawJSON(_ field: String) -> ArraySlice<UInt8>? {
        guard case .object(let members) = root.value, let m = members.first(where: { $0.key == field }) else { return nil }
        return bytes[m.node.range]
    }

    public var batchID: String? { self["batch_id"]?.stringValue }
    public var clientID: String? { self["client_id"]?.stringValue }
    public var receivedAt: String? { self["received_at"]?.stringValue }
    public var seq: Int? { self["seq"]?.numberValue.flatMap { Int(exactly: $0) } }
    public var dedupKey: DedupKey? { batchID.map { DedupKey(clientID: clientID, batchID: $0) } }
}

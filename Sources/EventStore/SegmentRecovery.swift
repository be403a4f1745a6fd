import DurableFiles
#if canImport(Glibc)
import Glibc
#endif

/// Start-up work of the owning instance: repair its own segments, seal them, remove stale temps
/// of index writes (`DurableFile.removeStaleTemps`), and rebuild the dedup keys from every
/// segment index inside the window (other instances' too: write-side dedup across replicas is
/// best effort, SPEC §5).
enum SegmentRecovery {
    struct Result {
        var dedup: DedupIndex
        var nextNumber: Int
        var repairedSegments: [String]
    }

    static func run(layout: SegmentLayout, windowHours: Double, now: Int64) throws(IOFailure) -> Result {
        var dedup = DedupIndex(windowHours: windowHours)
        var next = 1
        var repaired: [String] = []
        let oldest = now - dedup.windowMillis
        for day in SegmentLayout.days(in: layout.root) {
            let dir = layout.dayDirectory(day)
            // Index temps of writers killed mid-replace (any instance's, once stale: never a live one).
            DurableFile.removeStaleTemps(in: dir, now: now / 1000)
            let names = Set(DurableFile.entries(of: dir) ?? [])
            for name in names {
                if let segment = SegmentName(day: day, fileName: name), segment.instance == layout.instance {
                    next = max(next, segment.number + 1)
                    if !names.contains(name + ".idx") {
                        if try seal(path: "\(dir)/\(name)") { repaired.append("\(dir)/\(name)") }
                    }
                }
            }
            // Segment indexes newer than the window's start (re-listed: sealing just added some).
            guard let dayStart = EventTime.parseDay(day), dayStart + 86_400_000 > oldest else { continue }
            for name in DurableFile.entries(of: dir) ?? [] where name.hasSuffix(".jsonl.idx") {
                guard let index = SegmentIndexFile.read("\(dir)/\(name)"), index.maxMillis >= oldest else { continue }
                for key in index.keys { dedup.insert(key, at: index.maxMillis) }
            }
        }
        return Result(dedup: dedup, nextNumber: next, repairedSegments: repaired)
    }

    /// Cuts the segment back to its last commit record (a torn line, and whole lines of a group
    /// whose write a crash interrupted: never acknowledged), then writes the index from the
    /// committed lines. Returns whether the file had to be cut.
    private static func seal(path: String) throws(IOFailure) -> Bool {
        var keys: [DedupKey] = []
        var seen = Set<DedupKey>()
        var minMillis = Int64.max, maxMillis = Int64.min
        let committed: Int
        do {
            committed = try SegmentReader(path: path).forEachCommittedLine { line in
                guard let event = StoredEvent(line: line), let key = event.dedupKey else { return }
                if seen.insert(key).inserted { keys.append(key) }
                if let t = event.receivedAt.flatMap(EventTime.parseMillis) {
                    minMillis = min(minMillis, t)
                    maxMillis = max(maxMillis, t)
                }
            }.offset
        } catch let failure as IOFailure {
            throw failure
        } catch {
            throw IOFailure(path: path, operation: "read", code: EIO)
        }
        var st = stat()
        guard stat(path, &st) == 0 else { throw IOFailure(path: path, operation: "stat", code: errno) }
        let cut = Int(st.st_size) > committed
        if cut {
            let fd = open(path, O_WRONLY | O_CLOEXEC)
            guard fd >= 0 else { throw IOFailure(path: path, operation: "open", code: errno) }
            defer { close(fd) }
            guard ftruncate(fd, off_t(committed)) == 0, fsync(fd) == 0 else {
                throw IOFailure(path: path, operation: "truncate", code: errno)
            }
        }
        if keys.isEmpty { minMillis = 0; maxMillis = 0 }
        let index = SegmentIndexFile(keys: keys, minMillis: minMillis, maxMillis: maxMillis)
        try DurableFile.replace(path + ".idx", with: index.encoded())
        return cut
    }
}

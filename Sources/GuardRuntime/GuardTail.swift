import EventStore
import ModelCatalog

/// Reads event segments incrementally (SPEC §11.4): every instance's in `data/events/` and,
/// with §18's `guard_events_from`, the shipped ones copied into `data/guard-state/events/`;
/// each segment from where the last poll stopped, committed lines only (EventStore's
/// `SegmentReader`), so nothing is read twice and a write in progress is never counted. A
/// batch stored by two instances (a client's retry answered by another replica, or a segment
/// both local and shipped) is counted once: the read-side dedup of §5 by `(client_id,
/// batch_id)`, as `events export` does it.
public struct GuardTail {
    public let directories: [String]
    /// Date directories (`YYYY-MM-DD`) before this are not read: the start-up rebuild begins
    /// at the day the oldest running guard began.
    public let firstDay: String
    private var offsets: [String: Int] = [:]
    private var dedup: BatchDedup
    /// Lines that are not events (torn or foreign), and files that could not be read.
    public private(set) var skipped = 0
    /// Events dropped as copies of a batch already read.
    public private(set) var duplicates = 0
    /// The newest `received_at` read per storing instance (RFC 3339 UTC with milliseconds, as
    /// the store writes it, so the text orders as the time).
    public private(set) var newestEvent: [String: String] = [:]

    /// `dedupWindowHours`: how long a batch's key is kept after the day of its first copy
    /// (SPEC §5's `dedup_window_hours`), so a guard running for weeks holds a window's keys, not
    /// every batch since it began. A copy further apart counts again, as the write side stores it.
    public init(directories: [String], firstDay: String, dedupWindowHours: Double) {
        self.directories = directories
        self.firstDay = firstDay
        dedup = BatchDedup(windowHours: dedupWindowHours)
    }

    /// Day by day, each day in every directory: the dedup keeps the newest days, so a day is
    /// read everywhere before a later one (a local and a shipped copy of a batch are days apart
    /// at most by a retry, never by the order of the directories).
    public mutating func poll(_ body: (GuardEvent) -> Void) {
        let days = Set(directories.flatMap { FileIO.entries(of: $0) }).filter { Self.isDay($0) && $0 >= firstDay }
        for day in days.sorted() {
            for directory in directories {
                for name in FileIO.entries(of: directory + "/" + day).sorted() where name.hasSuffix(".jsonl") {
                    read(directory + "/" + day + "/" + name, day: day, body)
                }
            }
        }
    }

    /// Batch keys the dedup holds.
    public var dedupKeys: Int { dedup.count }

    private mutating func read(_ path: String, day: String, _ body: (GuardEvent) -> Void) {
        // A batch's events are consecutive lines committed together, so never split by a poll.
        dedup.startSegment(day: day)
        do {
            let progress = try SegmentReader(path: path).forEachCommittedLine(from: offsets[path] ?? 0) { line in
                guard let event = GuardEvent(line: line) else {
                    skipped += 1
                    return
                }
                if let batchID = event.batchID, dedup.isRepeat(clientID: event.clientID, batchID: batchID, seq: event.seq) {
                    duplicates += 1
                    return
                }
                if let instance = event.instance, let at = event.receivedAt, at > newestEvent[instance] ?? "" { newestEvent[instance] = at }
                body(event)
            }
            offsets[path] = progress.offset
            skipped += progress.skippedLines
        } catch {
            skipped += 1
        }
    }

    public static func isDay(_ name: String) -> Bool {
        let b = Array(name.utf8)
        return b.count == 10 && b[4] == UInt8(ascii: "-") && b[7] == UInt8(ascii: "-")
            && b.enumerated().allSatisfy { i, c in i == 4 || i == 7 || (48...57).contains(c) }
    }
}

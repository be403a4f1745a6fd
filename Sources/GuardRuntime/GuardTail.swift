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
    private var dedup = BatchDedup()
    /// Lines that are not events (torn or foreign), and files that could not be read.
    public private(set) var skipped = 0
    /// Events dropped as copies of a batch already read.
    public private(set) var duplicates = 0
    /// The newest `received_at` read per storing instance (RFC 3339 UTC with milliseconds, as
    /// the store writes it, so the text orders as the time).
    public private(set) var newestEvent: [String: String] = [:]

    public init(directories: [String], firstDay: String) {
        self.directories = directories
        self.firstDay = firstDay
    }

    public mutating func poll(_ body: (GuardEvent) -> Void) {
        for directory in directories {
            for day in FileIO.entries(of: directory).sorted() where Self.isDay(day) && day >= firstDay {
                for name in FileIO.entries(of: directory + "/" + day).sorted() where name.hasSuffix(".jsonl") {
                    read(directory + "/" + day + "/" + name, body)
                }
            }
        }
    }

    private mutating func read(_ path: String, _ body: (GuardEvent) -> Void) {
        // A batch's events are consecutive lines committed together, so never split by a poll.
        dedup.startSegment()
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

import EventStore
import ModelCatalog

/// Reads every instance's event segments in `data/events/` incrementally (SPEC §11.4): each
/// segment from where the last poll stopped, committed lines only (EventStore's
/// `SegmentReader`), so nothing is read twice and a write in progress is never counted.
public struct GuardTail {
    public let directory: String
    /// Date directories (`YYYY-MM-DD`) before this are not read: the start-up rebuild begins
    /// at the day the oldest running guard began.
    public let firstDay: String
    private var offsets: [String: Int] = [:]
    /// Lines that are not events (torn or foreign), and files that could not be read.
    public private(set) var skipped = 0

    public init(directory: String, firstDay: String) {
        self.directory = directory
        self.firstDay = firstDay
    }

    public mutating func poll(_ body: (GuardEvent) -> Void) {
        for day in FileIO.entries(of: directory).sorted() where Self.isDay(day) && day >= firstDay {
            for name in FileIO.entries(of: directory + "/" + day).sorted() where name.hasSuffix(".jsonl") {
                let path = directory + "/" + day + "/" + name
                do {
                    let progress = try SegmentReader(path: path).forEachCommittedLine(from: offsets[path] ?? 0) { line in
                        if let event = GuardEvent(line: line) { body(event) } else { skipped += 1 }
                    }
                    offsets[path] = progress.offset
                    skipped += progress.skippedLines
                } catch {
                    skipped += 1
                }
            }
        }
    }

    public static func isDay(_ name: String) -> Bool {
        let b = Array(name.utf8)
        return b.count == 10 && b[4] == UInt8(ascii: "-") && b[7] == UInt8(ascii: "-")
            && b.enumerated().allSatisfy { i, c in i == 4 || i == 7 || (48...57).contains(c) }
    }
}

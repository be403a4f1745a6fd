import DurableFiles

/// Reads the committed lines (`SegmentReader`) of every instance's segments in a time range,
/// dropping repeated batches: the read-side dedup guarantee across replicas (SPEC §5).
///
/// The rule: a batch's events are written together, so in one segment an *occurrence* of a
/// batch is a run of consecutive lines with the same `(client_id, batch_id)` that starts at a
/// line whose `seq` is 0 or whose key differs from the previous line's. Occurrences are visited
/// in order (day directories, then segment file names, then file order); the first occurrence
/// of a key is exported whole and every later occurrence — in another segment, another
/// instance's segment, or later in the same one — is skipped whole.
public struct EventExport {
    public struct Summary: Equatable, Sendable {
        public var exported = 0
        public var duplicateEvents = 0
        /// Committed lines that are not a stored event object, and lines of groups whose
        /// commit record does not match them (neither is ever written by the store).
        public var unreadableLines = 0
        public var segments = 0
    }

    public let directory: String
    public let since: String?
    public let until: String?

    /// `since`/`until` are inclusive UTC days `YYYY-MM-DD`, matched against `received_at`.
    public init(directory: String, since: String? = nil, until: String? = nil) {
        self.directory = directory
        self.since = since
        self.until = until
    }

    public static func isDay(_ s: String) -> Bool { EventTime.parseDay(s) != nil }

    private func inRange(_ day: Substring) -> Bool {
        if let since, day < since { return false }
        if let until, day > until { return false }
        return true
    }

    /// Calls `body` for each exported event, streaming (one commit group in memory at a time,
    /// plus the set of 128-bit keys seen).
    public func forEach(_ body: (StoredEvent) throws -> Void) throws -> Summary {
        var summary = Summary()
        var dedup = BatchDedup()
        for day in SegmentLayout.days(in: directory) where inRange(day[...]) {
            let dir = "\(directory)/\(day)"
            for name in (DurableFile.entries(of: dir) ?? []).filter({ $0.hasSuffix(".jsonl") }).sorted() {
                summary.segments += 1
                dedup.startSegment()
                let progress = try SegmentReader(path: "\(dir)/\(name)").forEachCommittedLine { line in
                    guard let event = StoredEvent(line: line), let batchID = event.batchID else {
                        summary.unreadableLines += 1
                        return
                    }
                    if dedup.isRepeat(clientID: event.clientID, batchID: batchID, seq: event.seq) {
                        summary.duplicateEvents += 1
                    } else if let received = event.receivedAt, inRange(received.prefix(10)) {
                        summary.exported += 1
                        try body(event)
                    }
                }
                summary.unreadableLines += progress.skippedLines
            }
        }
        return summary
    }
}

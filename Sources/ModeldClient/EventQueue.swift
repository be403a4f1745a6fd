import Foundation

/// The durable outcome-event queue (SPEC §13, §13.2).
///
/// `record` appends a line to `events/queue.jsonl` and costs the same with 10 or 10,000 events
/// queued: the file stays open (`DurableFile.openForAppending` cuts a torn tail a crash left
/// first), each line is written at once — a killed process loses none, they are in the page
/// cache — and made durable in groups at most 1 s apart
/// (``syncIfDue()``, ``sync()`` at background, close and before sealing). The bound is checked
/// against a running count, rescanned only after a send changed the files. Sending first *seals* the
/// queue: one rename turns it into `events/<seq>_<batch_id>.jsonl`, so the batch id is on disk
/// before the batch is ever sent and every retry reuses it (the server dedups by
/// `(client_id, batch_id)`). Splitting names children `<batch_id>-<n>` deterministically, so a
/// crash mid-split re-creates the same ids. Quarantined batches go to `events/quarantine/`.
final class EventQueue {
    static let maxEvents = 1000
    static let maxBytes = 512 << 10

    struct Batch: Equatable {
        let file: URL
        let batchID: String
        let lines: [Data]
    }

    /// Events made durable at most this long after `record` returned (SPEC §13.2).
    static let groupCommit: Duration = .seconds(1)

    let directory: URL
    /// The most events kept (SPEC §9.2: without a reachable events URL the queue must not grow
    /// without bound); beyond it the oldest whole batches are dropped and counted.
    var limit: Int
    /// `queue.jsonl` open for appends, from this process's first.
    private var appender: Int32?
    /// Appended and not yet fsynced; when the last group was made durable.
    private(set) var isDirty = false
    private var lastSync = ContinuousClock.now
    /// Events in the queue and its sealed batches, while no send has changed them (nil: rescan).
    private var knownCount: Int?

    init(directory: URL, limit: Int = .max) {
        self.directory = directory
        self.limit = limit
    }

    deinit { try? closeAppender() }  // releasing the queue is a clean end: its events are durable
    private var queueURL: URL { directory.appendingPathComponent("queue.jsonl") }
    private var quarantine: URL { directory.appendingPathComponent("quarantine") }
    private var droppedURL: URL { directory.appendingPathComponent("dropped") }

    func record(_ event: OutcomeEvent) throws {
        try event.validate()
        let line = try event.jsonLine()
        try makeRoom()
        let fd = try appender ?? DiskIO.openForAppending(queueURL)
        appender = fd
        try DiskIO.writeAll(fd, line + Data([0x0A]), path: queueURL.path)
        isDirty = true
        try syncIfDue()
        knownCount = knownCount.map { $0 + 1 }
    }

    /// Makes the appended events durable when the last group is `groupCommit` old.
    func syncIfDue() throws {
        if isDirty, ContinuousClock.now - lastSync >= Self.groupCommit { try sync() }
    }

    /// Makes every appended event durable now (background, close, before sealing).
    func sync() throws {
        guard isDirty, let appender else { return }
        try DiskIO.syncData(appender, path: queueURL.path)
        isDirty = false
        lastSync = .now
    }

    /// Syncs and closes the appender (before `queue.jsonl` is renamed, or at the end).
    private func closeAppender() throws {
        guard let fd = appender else { return }
        defer {
            DiskIO.closeFile(fd)
            appender = nil
        }
        try sync()
    }

    /// Events dropped so far because the queue was full (`events/dropped`, a decimal count).
    func droppedEventCount() -> Int {
        (try? String(contentsOf: droppedURL, encoding: .utf8)).flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? 0
    }

    /// Before an event is added to a full queue: seals the queue into batches and drops the
    /// oldest whole batches (a batch is all or nothing, like the server's dedup) until the new
    /// event fits; the count is written before the files go, so a crash over-counts rather
    /// than loses a drop.
    private func makeRoom() throws {
        guard limit < .max else { return }
        let count = knownCount ?? countLines(queueURL) + sealedLineCount()
        knownCount = count
        guard count + 1 > limit else { return }
        knownCount = nil  // files change below
        try seal()
        var files = try batchFiles()
        var total = files.reduce(0) { $0 + countLines($1) }
        var dropped: [URL] = []
        var droppedEvents = 0
        while total + 1 > limit, let oldest = files.first {
            let n = countLines(oldest)
            dropped.append(oldest)
            droppedEvents += n
            total -= n
            files.removeFirst()
        }
        guard !dropped.isEmpty else { return }
        try DiskIO.atomicWrite(Data(String(droppedEventCount() + droppedEvents).utf8), to: droppedURL)
        for file in dropped { try? FileManager.default.removeItem(at: file) }
        try DiskIO.fsyncDirectory(directory)
    }

    private func sealedLineCount() -> Int { ((try? batchFiles()) ?? []).reduce(0) { $0 + countLines($1) } }

    /// Newline-terminated lines, counted without parsing (the bound is checked on every record).
    private func countLines(_ url: URL) -> Int {
        guard let data = try? Data(contentsOf: url) else { return 0 }
        return data.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
    }

    /// Batches waiting to be sent, oldest first (after sealing what `record` queued).
    func pending() throws -> [Batch] {
        try seal()
        return try batchFiles().compactMap(load)
    }

    /// Events recorded or sealed and not yet acknowledged.
    /// A figure for display: a file that cannot be read counts 0 here, and fails `pending()`.
    func pendingEventCount() -> Int {
        let queued = (try? Data(contentsOf: queueURL)).map(Self.lines)?.count ?? 0
        let sealed = ((try? batchFiles()) ?? []).compactMap { try? load($0) }.reduce(0) { $0 + $1.lines.count }
        return queued + sealed
    }

    /// The server stored the batch (or had it already): forget it.
    func acknowledge(_ batch: Batch) throws {
        knownCount = nil
        try FileManager.default.removeItem(at: batch.file)
        try DiskIO.fsyncDirectory(directory)
    }

    /// The server refused the batch as invalid: keep it aside so later batches still go out.
    func quarantine(_ batch: Batch) throws {
        knownCount = nil
        try FileManager.default.createDirectory(at: quarantine, withIntermediateDirectories: true)
        try DiskIO.moveDurably(batch.file, to: quarantine.appendingPathComponent(batch.file.lastPathComponent))
    }

    /// The server found the batch too large (413): replace it by two halves. A single event
    /// that is too large is quarantined.
    func split(_ batch: Batch) throws {
        guard batch.lines.count > 1 else { return try quarantine(batch) }
        let half = batch.lines.count / 2
        try replace(batch, with: [Array(batch.lines[..<half]), Array(batch.lines[half...])])
    }

    /// The request body of `POST /latest` or `POST /events` for `batch`.
    static func body(_ batch: Batch, clientID: String) -> Data {
        var body = Data("{\"batch_id\":\"\(batch.batchID)\",\"client_id\":".utf8)
        body.append(try! JSONSerialization.data(withJSONObject: clientID, options: [.fragmentsAllowed]))
        body.append(Data(",\"events\":[".utf8))
        for (i, line) in batch.lines.enumerated() {
            if i > 0 { body.append(0x2C) }
            body.append(line)
        }
        body.append(Data("]}".utf8))
        return body
    }

    // MARK: sealing and files

    private func seal() throws {
        try closeAppender()  // the rename below must carry synced lines, and later appends a new file
        knownCount = nil
        guard let data = try DiskIO.readIfExists(queueURL), !Self.lines(data).isEmpty else { return }
        let sealed = directory.appendingPathComponent(String(format: "%016llx", UInt64(Date().timeIntervalSince1970 * 1e6))
                                                      + "_\(UUID().uuidString.lowercased()).jsonl")
        try DiskIO.moveDurably(queueURL, to: sealed)
        if let batch = try load(sealed), batch.lines.count > Self.maxEvents || data.count > Self.maxBytes {
            try replace(batch, with: Self.chunks(batch.lines))
        }
    }

    /// Writes the children first, then removes the parent: a crash in between leaves children
    /// with the same deterministic names, re-made identically next time.
    private func replace(_ batch: Batch, with parts: [[Data]]) throws {
        let prefix = batch.file.lastPathComponent.prefix { $0 != "_" }
        for (n, lines) in parts.enumerated() {
            var data = Data()
            for line in lines { data.append(line); data.append(0x0A) }
            let name = "\(prefix)_\(batch.batchID)-\(String(format: "%03d", n)).jsonl"
            try DiskIO.atomicWrite(data, to: directory.appendingPathComponent(name))
        }
        try FileManager.default.removeItem(at: batch.file)
        try DiskIO.fsyncDirectory(directory)
    }

    private static func chunks(_ lines: [Data]) -> [[Data]] {
        var parts: [[Data]] = [[]]
        var bytes = 0
        for line in lines {
            if parts[parts.count - 1].count == maxEvents || (bytes + line.count > maxBytes && !parts[parts.count - 1].isEmpty) {
                parts.append([])
                bytes = 0
            }
            parts[parts.count - 1].append(line)
            bytes += line.count + 1
        }
        return parts
    }

    private func batchFiles() throws -> [URL] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(".jsonl") && $0.contains("_") && !$0.hasPrefix(".") }
            .sorted()
            .map { directory.appendingPathComponent($0) }
    }

    private func load(_ file: URL) throws -> Batch? {
        let name = file.deletingPathExtension().lastPathComponent
        guard let underscore = name.firstIndex(of: "_") else { return nil }
        // A torn line (a crash mid-append, never acknowledged to the app) is not an event: drop it
        // rather than let the server refuse the whole batch.
        let lines = Self.lines(try Data(contentsOf: file)).filter {
            (try? JSONSerialization.jsonObject(with: $0)) is [String: Any]
        }
        guard !lines.isEmpty else {
            try? FileManager.default.removeItem(at: file)  // nothing in it to send; if it stays, it is skipped again
            return nil
        }
        return Batch(file: file, batchID: String(name[name.index(after: underscore)...]), lines: lines)
    }

    /// The newline-terminated lines (an unterminated tail is still being written or torn).
    static func lines(_ data: Data) -> [Data] {
        var result: [Data] = []
        var start = data.startIndex
        for i in data.indices where data[i] == 0x0A {
            if i > start { result.append(data[start..<i]) }
            start = i + 1
        }
        return result
    }
}

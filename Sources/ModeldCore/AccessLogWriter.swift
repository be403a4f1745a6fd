// The access log's background writer (SPEC §6). Requests only append a record to an in-memory
// buffer under a short lock; one thread swaps the buffer out every `flushInterval` (sooner when
// it grows large), serialises and writes it. A request never waits for the disk: when more
// than `maxPendingRecords` are waiting (the disk is stalled), new records are dropped and counted.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Logging

// Invariant: every stored `var` is read and written only with `condition` locked, except
// `sink`, `chunk` and `line`, which only the writer thread touches (and `close()` after joining it).
public final class AccessLogWriter: @unchecked Sendable {
    public enum Destination: Sendable, Equatable {
        /// `maxBytes` 0 = never rotate; `keep` rotated files `.1` … `.keep`.
        case file(path: String, maxBytes: Int64, keep: Int)
        case stdout
    }

    private let condition = AccessLogCondition()
    private let intervalNanoseconds: Int
    private let maxPendingRecords: Int
    private let wakeThreshold: Int
    private let onDropped: @Sendable (Int) -> Void
    private let logger: Logger

    private var pending: [AccessLogRecord] = []
    private var spare: [AccessLogRecord] = []
    private var dropped = 0
    private var wakeRequested = false
    private var flushTicket = 0
    private var completedTicket = 0
    private var closing = false
    private var thread: pthread_t?

    private let sink: AccessLogSink
    private var chunk: [UInt8] = []
    private var line: [UInt8] = []
    private var failing = false

    /// Opens the destination (throws when the file cannot be opened) and starts the writer thread.
    /// - Parameter onDropped: called on the writer thread with the number of records lost since the
    ///   last call (buffer full, or a failed write); e.g. `metrics.recordAccessLogDropped`.
    public init(destination: Destination,
                flushInterval: Duration = .milliseconds(100),
                maxPendingRecords: Int = 65_536,
                logger: Logger = Logger(label: "modeld.access-log"),
                onDropped: @escaping @Sendable (Int) -> Void = { _ in }) throws(AccessLogError) {
        sink = try AccessLogSink(destination)
        let (seconds, attoseconds) = flushInterval.components
        intervalNanoseconds = max(1_000_000, Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
        self.maxPendingRecords = maxPendingRecords
        // Small batches: the writer's CPU comes in short slices between the loops' requests
        // rather than millisecond bursts that a request waits behind (p99, issue #10).
        wakeThreshold = max(1, min(512, maxPendingRecords / 4))
        self.logger = logger
        self.onDropped = onDropped
        pending.reserveCapacity(wakeThreshold)
        startThread()
    }

    /// Cheap and non-blocking on I/O; callable from any thread. Ignored after `close()`.
    public func append(_ record: AccessLogRecord) {
        condition.lock()
        defer { condition.unlock() }
        guard !closing else { return }
        guard pending.count < maxPendingRecords else {
            dropped += 1
            return
        }
        pending.append(record)
        if pending.count == wakeThreshold {
            wakeRequested = true
            condition.broadcast()
        }
    }

    /// Returns once every record appended before the call has been written (or dropped).
    public func flush() {
        condition.lock()
        defer { condition.unlock() }
        guard !closing else { return }
        flushTicket += 1
        let ticket = flushTicket
        wakeRequested = true
        condition.broadcast()
        while completedTicket < ticket { condition.wait() }
    }

    /// Writes everything appended so far and stops the writer thread. Idempotent. Call it on
    /// shutdown: the writer thread keeps the writer alive until then.
    public func close() {
        let writer: pthread_t? = condition.withLock {
            closing = true
            wakeRequested = true
            condition.broadcast()
            defer { thread = nil }
            return thread
        }
        guard let writer else { return }
        pthread_join(writer, nil)
        sink.closeFile()
    }

    // MARK: - Writer thread

    static let niceIncrement: Int32 = 5

    private func startThread() {
        let retained = Unmanaged.passRetained(self).toOpaque()
        var handle = pthread_t()
        let started = pthread_create(&handle, nil, { argument in
            Unmanaged<AccessLogWriter>.fromOpaque(argument!).takeRetainedValue().run()
            return nil
        }, retained)
        precondition(started == 0, "cannot start the access-log writer thread: error \(started)")
        thread = handle
    }

    private func run() {
        // Below the event loops: on a saturated machine requests go first, the log catches up.
        ThreadPriority.nice(Self.niceIncrement).apply()
        while true {
            condition.lock()
            if !wakeRequested { condition.wait(nanoseconds: intervalNanoseconds) }
            wakeRequested = false
            swap(&pending, &spare)
            let ticket = flushTicket
            let finished = closing
            var lost = dropped
            dropped = 0
            condition.unlock()

            lost += write(spare)
            spare.removeAll(keepingCapacity: true)
            if lost > 0 { onDropped(lost) }

            condition.withLock {
                completedTicket = ticket
                condition.broadcast()
            }
            if finished { return }
        }
    }

    /// Returns the number of records lost to a failed write. Logs a failure once, and the recovery.
    private func write(_ records: [AccessLogRecord]) -> Int {
        guard !records.isEmpty else { return 0 }
        do {
            try sink.append(records, chunk: &chunk, line: &line)
            if failing {
                failing = false
                logger.notice("access log writes recovered")
            }
            return 0
        } catch {
            if !failing {
                failing = true
                logger.error("access log write failed; records are dropped until it recovers", metadata: ["error": "\(error)"])
            }
            return records.count
        }
    }
}

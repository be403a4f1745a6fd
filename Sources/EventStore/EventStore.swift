import DurableFiles
#if canImport(Glibc)
import Glibc
#endif
import CLinuxShims
import Dispatch
import Synchronization

/// The outcome events store (SPEC §5): validated batches in, durable JSON Lines out, with
/// group commit — one writer thread turns every batch submitted meanwhile into one write and
/// one fdatasync, then answers each batch on that thread.
public final class EventStore: Sendable {
    fileprivate struct Pending {
        let batch: EventBatch
        let sdk: String?
        let completion: @Sendable (EventSubmitResult) -> Void
    }

    private struct Mailbox {
        var queue: [Pending] = []
        var writerSleeping = false
        var closed = false
        var counters = EventStoreCounters()
    }

    private let mailbox = Mutex(Mailbox())
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private let lockFD: Int32
    private let config: EventStoreConfig
    /// Own segments cut back to their last commit record at open (for the start-up log).
    public let repairedSegments: [String]

    /// Takes the instance lock, repairs and indexes this instance's segments, rebuilds dedup,
    /// and starts the writer thread.
    public init(config: EventStoreConfig) throws(EventStoreOpenError) {
        guard SegmentLayout.isValidInstance(config.instance) else { throw .invalidInstance(config.instance) }
        let layout = SegmentLayout(root: config.directory, instance: config.instance)
        do { try DurableFile.makeDirectories(config.directory) } catch { throw .io(error.description) }
        let fd = open(layout.lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .io(IOFailure(path: layout.lockPath, operation: "open", code: errno).description) }
        // flock, not fcntl: it conflicts between two opens in one process too, so tests see the refusal.
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let e = errno
            Glibc.close(fd)
            if e == EWOULDBLOCK { throw .instanceLocked(path: layout.lockPath) }
            throw .io(IOFailure(path: layout.lockPath, operation: "flock", code: e).description)
        }
        // Also an OFD lock, which `events ship` can test with F_OFD_GETLK without taking it (a
        // probing flock would briefly hold the lock and could make this instance's start fail).
        guard modeld_ofd_lock(fd, 0) == 0 else {
            let e = errno
            Glibc.close(fd)
            throw .io(IOFailure(path: layout.lockPath, operation: "fcntl(F_OFD_SETLK)", code: e).description)
        }
        let recovered: SegmentRecovery.Result
        do {
            recovered = try SegmentRecovery.run(layout: layout, windowHours: config.dedupWindowHours, now: config.clock())
        } catch {
            Glibc.close(fd)
            throw .io(error.description)
        }
        lockFD = fd
        self.config = config
        repairedSegments = recovered.repairedSegments
        let writer = SegmentWriter(layout: layout, maxBytes: config.segmentMaxBytes, maxAgeMillis: config.segmentMaxMillis,
                                   io: config.io, nextNumber: recovered.nextNumber)
        let state = WriterState(store: self, writer: writer, dedup: recovered.dedup)
        startThread { state.run() }
    }

    /// Queues a validated batch. `completion` runs on the writer thread once the batch is
    /// durable (or known duplicate, or failed) — on the caller's thread only when the store is
    /// already closed. It must not block, nor call `submitAndWait` or `close`.
    public func submit(_ batch: EventBatch, sdk: String?, completion: @escaping @Sendable (EventSubmitResult) -> Void) {
        let closed = mailbox.withLock { m -> Bool in
            guard !m.closed else { return true }
            m.queue.append(Pending(batch: batch, sdk: sdk, completion: completion))
            m.counters.batches += 1
            if m.writerSleeping {
                m.writerSleeping = false
                wake.signal()
            }
            return false
        }
        if closed { completion(.unavailable("event store closed")) }
    }

    /// `submit` for callers that may block (modelctl, tests).
    public func submitAndWait(_ batch: EventBatch, sdk: String?) -> EventSubmitResult {
        let done = DispatchSemaphore(value: 0)
        let result = Mutex<EventSubmitResult?>(nil)
        submit(batch, sdk: sdk) { r in
            result.withLock { $0 = r }
            done.signal()
        }
        done.wait()
        return result.withLock { $0! }
    }

    /// Counts events of batches that failed validation (`modeld_events_total{result="rejected"}`).
    public func noteRejected(events: Int) {
        mailbox.withLock { $0.counters.eventsRejected += events }
    }

    public var counters: EventStoreCounters { mailbox.withLock { $0.counters } }

    /// Commits everything queued, seals the open segment, stops the writer and releases the
    /// lock. Later submits answer `unavailable`. Idempotent.
    public func close() {
        let first = mailbox.withLock { m -> Bool in
            guard !m.closed else { return false }
            m.closed = true
            if m.writerSleeping {
                m.writerSleeping = false
                wake.signal()
            }
            return true
        }
        guard first else { return }
        finished.wait()
        Glibc.close(lockFD)
    }

    // MARK: writer side

    /// Bound on one group's estimated line bytes, so a burst becomes several commits of bounded
    /// memory and latency rather than one huge write (a single larger batch still goes alone).
    static let maxGroupBytes = 8 << 20

    /// The next group: what is queued, up to `maxGroupBytes`; nil once closed and drained.
    /// Sleeps while there is nothing to do, at most until `deadline` (epoch ms of `clock`), then
    /// returns an empty group.
    fileprivate func takePending(until deadline: Int64?) -> [Pending]? {
        while true {
            let taken = mailbox.withLock { m -> [Pending]?? in
                if m.queue.isEmpty {
                    if m.closed { return .some(nil) }
                    m.writerSleeping = true
                    return nil
                }
                var count = 0, bytes = 0
                while count < m.queue.count, count == 0 || bytes + m.queue[count].batch.estimatedLineBytes <= Self.maxGroupBytes {
                    bytes += m.queue[count].batch.estimatedLineBytes
                    count += 1
                }
                if count == m.queue.count {
                    defer { m.queue = [] }
                    return .some(m.queue)
                }
                defer { m.queue.removeFirst(count) }
                return .some(Array(m.queue[..<count]))
            }
            if let taken { return taken }
            guard let deadline else { wake.wait(); continue }
            let millis = max(0, deadline - now)
            if wake.wait(timeout: .now() + .milliseconds(Int(min(millis, 86_400_000)))) == .timedOut {
                // A submitter that saw the flag before this may still signal: one spare wake-up.
                mailbox.withLock { $0.writerSleeping = false }
                return []
            }
        }
    }

    fileprivate func record(_ update: (inout EventStoreCounters) -> Void) {
        mailbox.withLock { update(&$0.counters) }
    }

    fileprivate func writerFinished() { finished.signal() }

    fileprivate var now: Int64 { config.clock() }
    fileprivate var instance: String { config.instance }
    fileprivate var fsyncObserver: (@Sendable (Double) -> Void)? { config.fsyncObserver }
}

/// The writer thread's own state.
/// Invariant: touched only by the writer thread once `run()` starts (created before, never shared).
private final class WriterState: @unchecked Sendable {
    let store: EventStore
    let writer: SegmentWriter
    var dedup: DedupIndex
    private var lastPrune: Int64 = 0

    init(store: EventStore, writer: SegmentWriter, dedup: DedupIndex) {
        self.store = store
        self.writer = writer
        self.dedup = dedup
    }

    func run() {
        while let group = store.takePending(until: writer.ageDeadline) {
            if group.isEmpty { writer.rotateIfAged(now: store.now) } else { commit(group) }
        }
        writer.seal()
        store.writerFinished()
    }

    /// One group commit. A batch whose key is already stored is a duplicate at once; a second
    /// copy within this group is a duplicate once the first is durable, and fails with it if
    /// the commit fails (the client's retry then stores it).
    private func commit(_ group: [EventStore.Pending]) {
        let now = store.now
        if now - lastPrune > 3_600_000 {
            dedup.prune(now: now)
            lastPrune = now
        }
        var bytes: [UInt8] = []
        var keys: [DedupKey] = []
        var writing: [EventStore.Pending] = []
        var followers: [EventStore.Pending] = []
        var inGroup = Set<DedupKey>()
        var immediate: [(EventStore.Pending, EventSubmitResult)] = []
        var duplicateEvents = 0
        let receivedAt = EventTime.format(ms: now)
        for p in group {
            let key = p.batch.dedupKey
            if dedup.contains(key, now: now) {
                immediate.append((p, .duplicate))
                duplicateEvents += p.batch.eventCount
            } else if inGroup.contains(key) {
                followers.append(p)
            } else if p.batch.eventCount == 0 {
                // Nothing to store, so nothing to remember: a retry is again "accepted 0".
                immediate.append((p, .accepted(0)))
            } else {
                inGroup.insert(key)
                keys.append(key)
                writing.append(p)
                p.batch.appendLines(to: &bytes, receivedAt: receivedAt, sdk: p.sdk, instance: store.instance)
            }
        }
        // Answers that depend on no write go out first.
        store.record { $0.eventsDuplicate += duplicateEvents }
        for (p, r) in immediate { p.completion(r) }
        guard !writing.isEmpty else { return }

        let accepted = writing.reduce(0) { $0 + $1.batch.eventCount }
        let seconds: Double
        do throws(IOFailure) {
            seconds = try writer.append(&bytes, lineCount: accepted, keys: keys, now: now)
        } catch {
            store.record { $0.failedCommits += 1 }
            for p in writing + followers { p.completion(.unavailable(error.description)) }
            return
        }
        for key in keys { dedup.insert(key, at: now) }
        let followerEvents = followers.reduce(0) { $0 + $1.batch.eventCount }
        store.record {
            $0.commits += 1
            $0.eventsAccepted += accepted
            $0.eventsDuplicate += followerEvents
        }
        store.fsyncObserver?(seconds)
        for p in writing { p.completion(.accepted(p.batch.eventCount)) }
        for p in followers { p.completion(.duplicate) }
    }
}

/// Runs `body` on a new detached POSIX thread (the store's writer: no Task, no executor).
private func startThread(_ body: @escaping @Sendable () -> Void) {
    final class Box: Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
    var thread = pthread_t()
    let box = Unmanaged.passRetained(Box(body)).toOpaque()
    let rc = pthread_create(&thread, nil, { raw in
        let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
        box.body()
        return nil
    }, box)
    precondition(rc == 0, "pthread_create failed: \(rc)")
    pthread_detach(thread)
}

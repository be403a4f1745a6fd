import CurlTransport
import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Runs jobs on threads of their own. Transfers block on the network, so the width is not
/// capped at the core count (as Dispatch's concurrentPerform is): a store answers each request
/// after a round trip, and several in flight keep both ends busy.
public enum Parallel {
    /// `job(0)` … `job(count - 1)` on up to `width` threads, results in job order. After a
    /// failure no further job starts; the first failure is thrown once the running jobs end.
    public static func map<T: Sendable, E: Error>(_ count: Int, width: Int, _ job: @escaping @Sendable (Int) throws(E) -> T) throws(E) -> [T] {
        let threads = min(max(width, 1), count)
        guard threads > 1 else {
            var results: [T] = []
            for index in 0..<count { results.append(try job(index)) }
            return results
        }
        let work = Work<T, E>(count: count)
        let finished = DispatchSemaphore(value: 0)
        for _ in 0..<threads {
            detachThread {
                while let index = work.claim() {
                    do throws(E) { work.complete(index, with: try job(index)) } catch { work.fail(error) }
                }
                finished.signal()
            }
        }
        for _ in 0..<threads { finished.wait() }
        return try work.results()
    }
}

/// Runs `body` on a new detached POSIX thread (not Foundation's `Thread`: modeld, which links
/// this module for §18's shipping, needs FoundationEssentials only).
private func detachThread(_ body: @escaping @Sendable () -> Void) {
    final class Box: Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
    let box = Unmanaged.passRetained(Box(body)).toOpaque()
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    defer { pthread_attr_destroy(&attributes) }
    pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
    var thread = pthread_t()
    let rc = pthread_create(&thread, &attributes, { raw in
        Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue().body()
        return nil
    }, box)
    precondition(rc == 0, "pthread_create failed: \(rc)")
}

/// The jobs' shared ledger: which job is next, the results so far, the first failure.
private final class Work<T: Sendable, E: Error>: Sendable {
    private struct State {
        var next = 0
        var results: [T?]
        var failure: E?
    }

    private let state: Mutex<State>

    init(count: Int) { state = Mutex(State(results: Array(repeating: nil, count: count))) }

    /// The next job to run, nil once all are claimed or one failed.
    func claim() -> Int? {
        state.withLock { state in
            guard state.failure == nil, state.next < state.results.count else { return nil }
            state.next += 1
            return state.next - 1
        }
    }

    func complete(_ index: Int, with result: T) { state.withLock { $0.results[index] = result } }

    func fail(_ error: E) { state.withLock { if $0.failure == nil { $0.failure = error } } }

    func results() throws(E) -> [T] {
        let (results, failure) = state.withLock { ($0.results, $0.failure) }
        if let failure { throw failure }
        return results.map { $0! }
    }
}

/// Progress through a whole made of concurrent transfers (the parts of one object, or a batch
/// of objects): each job reports its own bytes, the observer hears their sum. The observer is
/// only called under the lock, so a single-threaded one (a progress bar) is safe.
public final class CombinedProgress: @unchecked Sendable {
    private let whole: any CurlProgressObserver
    private let sent = Mutex<[Int: Int64]>([:])

    /// `alreadySent` counts bytes of the whole that need no transfer (parts uploaded before a resume).
    public init(_ whole: any CurlProgressObserver, alreadySent: Int64 = 0) {
        self.whole = whole
        sent.withLock { $0[-1] = alreadySent }
    }

    /// The observer for job `job`'s transfer.
    public func observer(forJob job: Int) -> any CurlProgressObserver { JobProgress(combined: self, job: job) }

    fileprivate func update(job: Int, sent bytes: Int64) {
        sent.withLock { sent in
            sent[job] = bytes
            whole.update(sent: sent.values.reduce(0, +))
        }
    }

    public func finish() { sent.withLock { _ in whole.finish() } }
}

private final class JobProgress: CurlProgressObserver {
    let combined: CombinedProgress
    let job: Int

    init(combined: CombinedProgress, job: Int) {
        self.combined = combined
        self.job = job
    }

    func update(sent: Int64) { combined.update(job: job, sent: sent) }
    func finish() {}
}

import CLinuxShims
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A thread that runs `body` at start, then again when its wait ends or it is poked, until
/// `stop()` (which wakes and joins it). `body(poked)` returns how long to wait next, in ms.
/// For the periodic background jobs (garbage collection, re-signing) that must never run on a loop.
final class BackgroundLoop: Sendable {
    private let body: @Sendable (_ poked: Bool) -> Int32
    private let stopping = Mutex(false)
    private let thread = Mutex<pthread_t?>(nil)
    private let wake: (read: Int32, write: Int32)

    private let priority: ThreadPriority

    /// `priority`: how the thread yields to the event loops.
    init(priority: ThreadPriority = .nice(AccessLogWriter.niceIncrement), _ body: @escaping @Sendable (_ poked: Bool) -> Int32) {
        self.priority = priority
        self.body = body
        var fds: [Int32] = [-1, -1]
        precondition(pipe(&fds) == 0)
        wake = (fds[0], fds[1])
        _ = fcntl(wake.write, F_SETFL, O_NONBLOCK)   // pokes coalesce; a full pipe is already a poke
    }

    deinit {
        close(wake.read)
        close(wake.write)
    }

    func start() {
        let box = Unmanaged.passRetained(self).toOpaque()
        var tid = pthread_t()
        guard pthread_create(&tid, nil, { raw in
            Unmanaged<BackgroundLoop>.fromOpaque(raw!).takeRetainedValue().loop()
            return nil
        }, box) == 0 else {
            Unmanaged<BackgroundLoop>.fromOpaque(box).release()
            return
        }
        thread.withLock { $0 = tid }
    }

    /// Runs `body(true)` soon, without waiting for the current wait to end.
    func poke() {
        var one: UInt8 = 1
        _ = write(wake.write, &one, 1)
    }

    func stop() {
        stopping.withLock { $0 = true }
        poke()
        if let t = thread.withLock({ $0 }) { pthread_join(t, nil) }
    }

    private func loop() {
        // Like the access-log writer: background work never preempts a request.
        priority.apply()
        var poked = true   // the first run counts as poked: start-up work
        while !stopping.withLock({ $0 }) {
            let waitMs = body(poked)
            var p = pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)
            poked = poll(&p, 1, max(0, waitMs)) > 0
            if poked {
                var drain = [UInt8](repeating: 0, count: 64)
                _ = read(wake.read, &drain, drain.count)
            }
        }
    }
}

/// How a background thread yields to the event loops (Linux: per thread).
enum ThreadPriority: Sendable {
    /// A higher nice value: the thread still gets its share of a busy core.
    case nice(Int32)
    /// SCHED_IDLE: the thread runs only when a core would otherwise idle, so it never takes CPU
    /// a request could use; at nice `fallback` where the kernel refuses the policy.
    case idle(fallback: Int32)

    /// Applies to the calling thread.
    func apply() {
        switch self {
        case .nice(let increment): _ = modeld_lower_thread_priority(increment)
        case .idle(let fallback): if modeld_idle_thread_priority() != 0 { _ = modeld_lower_thread_priority(fallback) }
        }
    }
}

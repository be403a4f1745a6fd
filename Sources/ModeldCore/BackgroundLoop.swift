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

    private let niceIncrement: Int32

    /// `niceIncrement`: how far below the event loops the thread runs (Linux nice, per thread).
    init(niceIncrement: Int32 = AccessLogWriter.niceIncrement, _ body: @escaping @Sendable (_ poked: Bool) -> Int32) {
        self.niceIncrement = niceIncrement
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
        _ = modeld_lower_thread_priority(niceIncrement)
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

import CLinuxShims
import Glibc
import Synchronization

/// Work handed to a loop: completions and resumptions from route threads, and stop.
enum LoopMessage: Sendable {
    case complete(Exchange, Response)
    case resume(Exchange)
    case stop
}

/// The only cross-thread door into a loop: a locked message list plus an eventfd that wakes the
/// loop's epoll_wait. One wake-up covers any number of messages posted before the loop drains.
final class Mailbox: Sendable {
    private struct State {
        var messages: [LoopMessage] = []
        var signalled = false
        var closed = false
    }
    private let state = Mutex(State())
    let wakeFD: Int32

    init() throws(ServerError) {
        wakeFD = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        if wakeFD < 0 { throw ServerError.system("eventfd", errno) }
    }

    deinit { Glibc.close(wakeFD) }

    func post(_ message: LoopMessage) {
        let wake = state.withLock { s -> Bool in
            guard !s.closed else { return false }
            s.messages.append(message)
            defer { s.signalled = true }
            return !s.signalled
        }
        if wake {
            var one: UInt64 = 1
            _ = write(wakeFD, &one, 8)
        }
    }

    /// Swaps the pending messages into `batch` (which must be empty) and re-arms the wake-up.
    func drain(into batch: inout [LoopMessage]) {
        var counter: UInt64 = 0
        _ = read(wakeFD, &counter, 8)
        state.withLock { s in
            swap(&s.messages, &batch)
            s.signalled = false
        }
    }

    /// Later posts are dropped (the loop is gone).
    func close() { state.withLock { $0.closed = true; $0.messages.removeAll() } }
}

import CLinuxShims
#if canImport(Glibc)
import Glibc
#endif

/// Reads SIGTERM, SIGINT and SIGHUP through a signalfd (no async signal handlers).
/// `block()` must run on the main thread before any other thread starts, so that every thread
/// inherits the mask and the signals queue for the signalfd instead of killing the process.
struct SignalWatcher {
    enum Signal { case terminate, reload }

    private let fd: Int32
    private static let watched: [Int32] = [SIGTERM, SIGINT, SIGHUP]

    static func block() {
        _ = watched.withUnsafeBufferPointer { modeld_sigmask_block($0.baseAddress, Int32($0.count)) }
    }

    init() {
        var set = sigset_t()
        sigemptyset(&set)
        for s in Self.watched { sigaddset(&set, s) }
        fd = signalfd(-1, &set, Int32(SFD_CLOEXEC))
        precondition(fd >= 0, "signalfd failed: errno \(errno)")
    }

    /// Blocks until the next watched signal arrives.
    func next() -> Signal {
        var info = signalfd_siginfo()
        while true {
            let n = read(fd, &info, MemoryLayout<signalfd_siginfo>.size)
            if n == MemoryLayout<signalfd_siginfo>.size {
                return Int32(info.ssi_signo) == SIGHUP ? .reload : .terminate
            }
            if n < 0 && errno != EINTR { fatalError("signalfd read failed: errno \(errno)") }
        }
    }
}

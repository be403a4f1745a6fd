import CLinuxShims
import Logging
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The models directory's writer duties (SPEC §16.1; docs/decisions/directory-writer.md):
/// deriving packs and patches, rewriting rules files after offline changes, writing and
/// re-signing the signed pointers, collecting garbage. One instance per directory does them: the
/// holder of an OFD lock on `models/.derive.lock`, taken without blocking and retried every
/// minute, so a stand-by takes over within a minute of the holder's exit (the kernel drops the
/// lock with the process, even on SIGKILL). An instance that does not hold it writes nothing
/// under `models/` unless it accepts a change itself. `pack_at_publish: false` never tries.
final class WriterDuties: Sendable {
    static let lockName = ".derive.lock"
    /// SPEC §16.1: the stand-bys retry every minute. `MODELD_TEST_DERIVE_RETRY_MS` shortens it
    /// for the integration tests only (docs/configuration.md).
    static let retryMillis: Int32 = 60_000

    let lockPath: String
    private let enabled: Bool
    private let retry: Int32
    private let fd = Mutex<Int32>(-1)
    private let reported = Mutex<Set<String>>([])   // each stand-by reason logged once
    private let onAcquired = Mutex<[@Sendable () -> Void]>([])
    private let loop = Mutex<BackgroundLoop?>(nil)

    init(modelsDir: String, enabled: Bool, environment: [String: String]) {
        lockPath = modelsDir + "/" + Self.lockName
        self.enabled = enabled
        retry = environment["MODELD_TEST_DERIVE_RETRY_MS"].flatMap { Int32($0) }.map { max(10, $0) } ?? Self.retryMillis
    }

    /// True while this instance holds the lock: the duties are its to do.
    var isHeld: Bool { fd.withLock { $0 >= 0 } }

    /// Runs `body` (on the retry thread) when the lock is taken after start-up: a duty waiting
    /// for its next period should run now.
    func whenAcquired(_ body: @escaping @Sendable () -> Void) { onAcquired.withLock { $0.append(body) } }

    /// Tries the lock once now (so the duties' start-up passes already know), then keeps
    /// retrying on a background thread until it is held.
    func start() {
        guard enabled else {
            Logger(label: "modeld.writer").info("pack_at_publish is false: this instance derives nothing and leaves the models directory's writer duties to another")
            return
        }
        guard !tryLock() else { return }
        let retry = self.retry
        let retrying = BackgroundLoop { [self] _ in
            guard tryLock() else { return retry }
            for body in onAcquired.withLock({ $0 }) { body() }
            return Int32.max   // held until the process exits; nothing left to do
        }
        loop.withLock { $0 = retrying }
        retrying.start()
    }

    func stop() { loop.withLock { $0 }?.stop() }

    private func tryLock() -> Bool {
        if isHeld { return true }
        let log = Logger(label: "modeld.writer")
        let opened = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard opened >= 0 else {
            let reason = String(cString: strerror(errno))
            // A read-only volume (or one this user may not write) is a serving replica's normal
            // case: one notice, then silence while retrying (it may be remounted writable).
            if reported.withLock({ $0.insert("open").inserted }) {
                log.notice("cannot open \(lockPath) (\(reason)): serving only; this instance writes nothing under the models directory")
            }
            return false
        }
        guard modeld_ofd_lock(opened, 0) == 0 else {
            close(opened)
            if reported.withLock({ $0.insert("held").inserted }) {
                log.info("another instance holds \(lockPath): standing by for the models directory's writer duties (retrying every \(retry / 1000) s)")
            }
            return false
        }
        fd.withLock { $0 = opened }
        log.info("this instance holds \(lockPath): it derives packs and patches, keeps the rules files and signed pointers current and collects garbage")
        return true
    }
}

import Logging
import ModelCatalog
import ModeldSigning
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The background half of signing (SPEC §12): re-signs every /latest body each
/// `resign_seconds`, and writes the static snapshot + signed pointer at start-up, after every
/// catalog change the watcher sees (published here or offline) and each `resign_seconds`.
final class SigningService: Sendable {
    private let signing: Signing
    private let holder: CatalogHolder
    private let details: SignedDetails
    private let stopping = Mutex(false)
    private let thread = Mutex<pthread_t?>(nil)
    private let wake: (read: Int32, write: Int32)

    init(signing: Signing, holder: CatalogHolder, store: CatalogStore, graceDays: Int) {
        self.signing = signing
        self.holder = holder
        details = SignedDetails(store: store, signer: signing.signer, graceDays: graceDays)
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
            Unmanaged<SigningService>.fromOpaque(raw!).takeRetainedValue().loop()
            return nil
        }, box) == 0 else {
            Unmanaged<SigningService>.fromOpaque(box).release()
            return
        }
        thread.withLock { $0 = tid }
    }

    /// The catalog changed: write the snapshot and pointer now (the watcher already signed the bodies).
    func catalogChanged() { poke() }

    func stop() {
        stopping.withLock { $0 = true }
        poke()
        if let t = thread.withLock({ $0 }) { pthread_join(t, nil) }
    }

    private func poke() {
        var one: UInt8 = 1
        _ = write(wake.write, &one, 1)
    }

    private func loop() {
        let log = Logger(label: "modeld.signing")
        let period = Int64(signing.resignSeconds)
        var nextResign = Signing.now() + period
        var writePointer = true   // at start-up: covers changes made while no server ran
        while !stopping.withLock({ $0 }) {
            let now = Signing.now()
            if now >= nextResign {
                let current = holder.served
                holder.replace(current, with: current.resigned(signing))
                nextResign = now + period
                writePointer = true
            }
            if writePointer {
                do throws(CatalogError) { try details.refresh(now: now) } catch {
                    log.error("cannot write \(SignedPointer.fileName): \(error)")
                }
                writePointer = false
            }
            var p = pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)
            let waitMs = Int32(clamping: max(0, nextResign - Signing.now()) * 1000 + 1)
            if poll(&p, 1, waitMs) > 0 {
                var buffer = [UInt8](repeating: 0, count: 64)
                _ = read(wake.read, &buffer, buffer.count)
                writePointer = true
            }
        }
    }
}

import Logging
import ModelCatalog
import ModeldSigning
import Synchronization

/// The background half of signing (SPEC §12): re-signs every /latest body each
/// `resign_seconds`, and writes the static snapshot + signed pointer at start-up (covering
/// changes made while no server ran), after every catalog change the watcher sees (published
/// here or offline) and each `resign_seconds`. Every instance signs its own /latest bodies;
/// only the one holding the directory's writer duties writes the files (`WriterDuties`).
final class SigningService: Sendable {
    private let loop: BackgroundLoop

    init(signing: Signing, holder: CatalogHolder, store: CatalogStore, graceDays: Int, duties: WriterDuties) {
        let details = SignedDetails(store: store, signer: signing.signer, graceDays: graceDays)
        let period = Int64(signing.resignSeconds)
        let nextResign = Mutex(Signing.now() + period)
        loop = BackgroundLoop { catalogChanged in
            let now = Signing.now()
            var writePointer = catalogChanged
            if now >= nextResign.withLock({ $0 }) {
                let current = holder.served
                holder.replace(current, with: current.resigned(signing))
                nextResign.withLock { $0 = now + period }
                writePointer = true
            }
            if writePointer && duties.isHeld {
                do throws(CatalogError) { try details.refresh(now: now) } catch {
                    Logger(label: "modeld.signing").error("cannot write \(SignedPointer.fileName): \(error)")
                }
            }
            return Int32(clamping: (nextResign.withLock { $0 } - Signing.now()) * 1000 + 1)
        }
    }

    func start() { loop.start() }
    func stop() { loop.stop() }

    /// The catalog changed: write the snapshot and pointer now (the watcher already signed the bodies).
    func catalogChanged() { loop.poke() }
}

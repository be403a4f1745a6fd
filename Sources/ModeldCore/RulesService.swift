import Logging
import ModelCatalog
import Synchronization

/// Keeps the rules files (SPEC §9.2) current when the change was not made through this
/// server: at start-up, within the watcher's poll of a catalog change made offline (a
/// publisher that wrote no rules, e.g. an older modelctl), and — with signing keys — re-signs
/// every pointer each `resign_seconds` so they never expire on a CDN. Changes made through this
/// server already wrote their rules under the publish lock; refreshing them again is a no-op.
/// A writer duty: only the instance holding them writes (`WriterDuties`); the others keep the
/// schedule and write nothing.
final class RulesService: Sendable {
    private let loop: BackgroundLoop

    init(store: CatalogStore, resignSeconds: Int?, duties: WriterDuties) {
        let period = resignSeconds.map(Int64.init)
        let nextResign = Mutex(period.map { Signing.now() + $0 })
        loop = BackgroundLoop { _ in
            let now = Signing.now()
            let resign = nextResign.withLock { next in
                guard let n = next, let period, now >= n else { return false }
                next = now + period
                return true
            }
            if duties.isHeld {
                do throws(CatalogError) { try store.rules.refresh(store: store, now: now, resign: resign) } catch {
                    Logger(label: "modeld.rules").error("cannot write the rules files: \(error)")
                }
            }
            guard let next = nextResign.withLock({ $0 }) else { return 3_600_000 }
            return Int32(clamping: (next - Signing.now()) * 1000 + 1)
        }
    }

    func start() { loop.start() }
    func stop() { loop.stop() }

    /// The catalog changed (here or offline): bring the rules files up to date now.
    func catalogChanged() { loop.poke() }
}

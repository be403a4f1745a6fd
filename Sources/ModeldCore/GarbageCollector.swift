import Logging
import ModelCatalog

/// Deletes retired files once their grace period is over (SPEC §7.1), at start-up and hourly.
final class GarbageCollector: Sendable {
    private let loop: BackgroundLoop

    init(store: CatalogStore, graceDays: Int, watcher: CatalogWatcher) {
        loop = BackgroundLoop { _ in
            let log = Logger(label: "modeld.gc")
            do throws(CatalogError) {
                let deleted = try store.collectGarbage(graceDays: graceDays)
                if !deleted.isEmpty {
                    log.info("deleted \(deleted.count) retired file(s) past their \(graceDays)-day grace period")
                    watcher.reloadNow()
                }
            } catch {
                log.error("garbage collection failed: \(error)")
            }
            return 3_600_000   // an hour, or until stop()
        }
    }

    func start() { loop.start() }
    func stop() { loop.stop() }
}

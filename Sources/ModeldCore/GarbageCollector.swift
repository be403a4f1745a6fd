import DurableFiles
import GuardRuntime
import Logging
import ModelCatalog
#if canImport(Glibc)
import Glibc
#endif

/// At start-up and hourly: deletes retired files once their grace period is over (SPEC §7.1),
/// and the temp files killed writers left in the models directory and in `data/guard-state`
/// once they are older than `DurableFile.staleTempAge` (docs/decisions/durable-files.md). Event
/// segments' temps are the event store's, removed when it opens. A writer duty: only the
/// instance holding them collects (`WriterDuties`).
final class GarbageCollector: Sendable {
    private let loop: BackgroundLoop

    init(store: CatalogStore, dataDir: String, graceDays: Int, watcher: CatalogWatcher, duties: WriterDuties) {
        let guardState = GuardRecords(dataDir: dataDir).stateDirectory
        loop = BackgroundLoop { _ in
            guard duties.isHeld else { return 3_600_000 }   // poked when the duties are taken
            let log = Logger(label: "modeld.gc")
            do throws(CatalogError) {
                let deleted = try store.collectGarbage(graceDays: graceDays)
                if !deleted.isEmpty {
                    log.info("deleted \(deleted.count) retired file(s) past their \(graceDays)-day grace period")
                    watcher.reloadAfterChange()
                }
            } catch {
                log.error("garbage collection failed: \(error)")
            }
            let now = Int64(time(nil))
            let temps = store.removeStaleTemps(now: now).map { store.directory + "/" + $0 }
                + DurableFile.removeStaleTemps(in: guardState, now: now).map { guardState + "/" + $0 }
            if !temps.isEmpty { log.notice("removed \(temps.count) temp file(s) left by killed writers: \(temps.joined(separator: ", "))") }
            return 3_600_000   // an hour, or until stop()
        }
    }

    func start() { loop.start() }
    func stop() { loop.stop() }
    func poke() { loop.poke() }
}

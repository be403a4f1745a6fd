import Logging
import ModelCatalog
import Synchronization

/// Packed files and patches at publish (SPEC §16), off the publish path: encoding runs at
/// 10–19 MB/s per core, minutes for a large model, so a publish answers as soon as its file is
/// committed and this worker derives afterwards — one file at a time, on a thread that runs
/// only when a core would otherwise idle — and records the result under the publish lock. Its
/// state is the catalog itself (a file without a record is still to do), so a restart, even
/// after SIGKILL, simply continues; replicas sharing a directory may both derive a file, and
/// the first record wins. The watcher serves a record within its 2 s poll, like any offline
/// change. On SIGTERM a derivation in progress is abandoned as a crash would leave it, never
/// awaited (docs/decisions/tensor-pack.md).
final class TransferDeriver: Sendable {
    private let loop: BackgroundLoop

    /// Between passes when nothing is waiting: catalog changes poke it sooner.
    static let idleMillis: Int32 = 60_000

    init(store: CatalogStore, instance: String, patchBases: Int) {
        // A file whose derivation failed is not retried by this process (a restart retries).
        let failed = Mutex<Set<String>>([])
        loop = BackgroundLoop(priority: GuardEvaluator.priority) { _ in
            let log = Logger(label: "modeld.transfer")
            let jobs: [DerivationJob]
            do throws(CatalogError) { jobs = try store.load().derivationJobs(patchBases: patchBases) } catch {
                log.error("cannot read the catalog to derive packs and patches: \(error)")
                return Self.idleMillis
            }
            guard let job = jobs.first(where: { job in !failed.withLock { $0.contains(job.file) } }) else { return Self.idleMillis }
            do throws(CatalogError) {
                if let made = try store.derive(job, instance: instance) {
                    log.info("derived \(job.file): \(made.packed.map { "pack \($0.size) bytes" } ?? "no pack"), \(made.patches.count) patch(es)")
                }
            } catch {
                failed.withLock { _ = $0.insert(job.file) }
                log.error("cannot derive the pack and patches of \(job.file): \(error)")
            }
            return 0   // the next file at once
        }
    }

    func start() { loop.start() }
    func poke() { loop.poke() }
}

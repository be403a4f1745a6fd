import Logging
import ModelCatalog
import Synchronization

/// Packed files and patches at publish (SPEC §16, §16.1), off the publish path: encoding runs
/// at 10–19 MB/s per core, minutes for a large model, so a publish answers as soon as its file
/// is committed and this worker derives afterwards — one file at a time, on a thread that runs
/// only when a core would otherwise idle, and only on the instance holding the directory's
/// writer duties. Finished files are recorded in groups (`DerivationRun`: at most one catalog
/// write per second). Its state is the catalog itself (a file without a record is still to
/// do), so a restart, even after SIGKILL, simply continues. The watcher serves a record within
/// its poll, like any offline change. On SIGTERM a derivation in progress is abandoned as a
/// crash would leave it, never awaited (docs/decisions/tensor-pack.md).
final class TransferDeriver: Sendable {
    private let loop: BackgroundLoop
    private let inbox: Inbox

    /// The newest catalog the watcher delivered, not yet planned from.
    private final class Inbox: Sendable {
        let catalog = Mutex<Catalog?>(nil)
        func take() -> Catalog? { catalog.withLock { c in defer { c = nil }; return c } }
    }

    /// Between passes when nothing is waiting: catalog changes poke it sooner.
    static let idleMillis: Int32 = 60_000

    init(store: CatalogStore, instance: String, patchBases: Int, duties: WriterDuties) {
        let run = Mutex(DerivationRun(store: store, instance: instance, patchBases: patchBases))
        let inbox = Inbox()
        self.inbox = inbox
        loop = BackgroundLoop(priority: GuardEvaluator.priority) { _ in
            guard duties.isHeld else { return Self.idleMillis }
            let log = Logger(label: "modeld.transfer")
            return run.withLock { run in
                if let catalog = inbox.take() { run.plan(catalog) }
                do throws(CatalogError) {
                    let step = try run.step(onRecorded: { group in
                        for d in group {
                            log.info("derived \(d.job.file): \(d.made.packed.map { "pack \($0.size) bytes" } ?? "no pack"), \(d.made.patches.count) patch(es)")
                        }
                    }, onFailed: { job, error in
                        log.error("cannot derive the pack and patches of \(job.file): \(error)")
                    })
                    switch step {
                    case .next: return 0
                    case .wait(let milliseconds): return milliseconds
                    case .done: return Self.idleMillis
                    }
                } catch {
                    log.error("cannot record derived packs and patches: \(error)")
                    return Self.idleMillis
                }
            }
        }
    }

    func start() { loop.start() }
    func poke() { loop.poke() }

    /// The catalog changed (or was loaded at start-up): plan from it and derive what waits.
    func catalogChanged(_ catalog: Catalog) {
        inbox.catalog.withLock { $0 = catalog }
        loop.poke()
    }
}

import EventShipping
import GuardRuntime
import Guardrails
import Logging
import ModelCatalog
import Synchronization
#if canImport(Glibc)
import Glibc
#endif
import CLinuxShims
import CivilTime

/// The guard evaluator (SPEC §11.4) on its own background thread, never a loop thread: the
/// instance holding `data/guard.lock` tails every instance's segments, evaluates each running
/// guard every `guard_interval_seconds`, applies decisions through the publish lock
/// (`CatalogStore.mutate`, so replicas follow) and records them. Other replicas stand by and
/// try the lock at every interval, so one takes over when the holder dies.
final class GuardEvaluator: Sendable {
    private let loop: BackgroundLoop

    /// Further below the loops than other background work (nice +5, which still takes a share
    /// of a busy core): the tail reads every stored event, and a server saturated with event
    /// batches would otherwise give a large share of its cores to analysis. Under saturation
    /// the evaluator lags (nothing is lost: it resumes from its offsets) and catches up when a
    /// core idles; decisions are minutes apart.
    static let priority = ThreadPriority.idle(fallback: 15)

    /// `shipped`: SPEC §18's `guard_events_from`, the bucket's segments read beside the local ones.
    /// `dedupWindowHours`: how long the tail keeps a batch's key (SPEC §5's window).
    init(store: CatalogStore, dataDir: String, intervalSeconds: Int, watcher: CatalogWatcher, metrics: Metrics, shipped: ShippedSegmentFollower?,
         dedupWindowHours: Double) {
        let state = Mutex(GuardEvaluatorState(store: store, records: GuardRecords(dataDir: dataDir), lockPath: dataDir + "/guard.lock",
                                              metrics: metrics, shipped: shipped, dedupWindowHours: dedupWindowHours))
        loop = BackgroundLoop(priority: Self.priority) { _ in
            state.withLock { if $0.tick(now: Timestamp.now().millisecondsSinceEpoch) { _ = watcher.reloadAfterChange() } }
            return Int32(clamping: intervalSeconds * 1000)
        }
    }

    func start() { loop.start() }
    func stop() { loop.stop() }
}

struct GuardEvaluatorState {
    let store: CatalogStore
    let records: GuardRecords
    let lockPath: String
    let metrics: Metrics
    let dedupWindowHours: Double
    private var lockFD: Int32 = -1
    private var tail: GuardTail?
    private var shipped: ShippedSegmentFollower?
    private var experiments: [String: GuardExperiment] = [:]
    private let log = Logger(label: "modeld.guard")

    init(store: CatalogStore, records: GuardRecords, lockPath: String, metrics: Metrics, shipped: ShippedSegmentFollower? = nil,
         dedupWindowHours: Double) {
        self.metrics = metrics
        self.dedupWindowHours = dedupWindowHours
        self.shipped = shipped
        self.store = store
        self.records = records
        self.lockPath = lockPath
    }

    /// One evaluation; true when the catalog changed.
    mutating func tick(now: Int64) -> Bool {
        metrics.recordGuardInterval()
        guard holdsLock() else { return false }
        let catalog: Catalog
        do { catalog = try store.load() } catch {
            log.error("guard: cannot read the catalog: \(error)")
            return false
        }
        let running = catalog.releases.filter(\.hasRunningGuard)
        var changed = false
        // A guard no longer running (a manual change recorded its own manual_override, §11.4).
        for id in experiments.keys where !running.contains(where: { $0.id == id }) {
            experiments[id] = nil
            metrics.recordGuard(release: id, nil)
        }
        guard !running.isEmpty else {
            tail = nil
            return false
        }
        // A guard not seen before may have begun before what the tail already read (it was
        // published during the last poll): rebuild every guard from the segments, which counts
        // exactly once what a continuous tail would have. New guards are rare; rebuilds cheap.
        if running.contains(where: { experiments[$0.id] == nil }) {
            experiments = [:]
            tail = nil
        }
        for r in running {
            if experiments[r.id] == nil {
                // The SRM test's running minimum survives restarts and rebuilds in the state file.
                let srmPValue = records.srmPValue(releaseID: r.id, guardStartedAt: r.guardPlan?.runtime.startedAt)
                experiments[r.id] = GuardExperiment(release: r, catalog: catalog, srmPValue: srmPValue)
            } else {
                experiments[r.id]!.update(release: r, catalog: catalog)
            }
        }
        if tail == nil {
            let oldest = running.compactMap { $0.guardPlan?.runtime.startedAt }.min() ?? now
            tail = GuardTail(directories: [records.dataDir + "/events"] + (shipped.map { [$0.directory] } ?? []),
                             firstDay: String(Timestamp(millisecondsSinceEpoch: oldest).rfc3339.prefix(10)), dedupWindowHours: dedupWindowHours)
        }
        fetchShipped(since: tail!.firstDay, now: now)
        let ids = Array(experiments.keys)
        let skippedBefore = tail!.skipped
        // Out of the dictionary while the tail runs: an array's elements are updated in place,
        // where `experiments[id]!.record` moved each experiment out and back for every event.
        var tailed = Array(experiments.values)
        experiments = [:]
        tail!.poll { event in
            for i in tailed.indices { tailed[i].record(event) }
        }
        experiments = Dictionary(uniqueKeysWithValues: tailed.map { ($0.releaseID, $0) })
        metrics.recordGuardSkippedLines(tail!.skipped - skippedBefore)
        for id in ids {
            guard let experiment = experiments[id], let plan = experiment.release.guardPlan else { continue }
            let evaluation = GuardEngine.evaluate(plan, stage: experiment.release.rolloutPercent, arms: experiment.arms, now: now,
                                                  srmPValue: experiment.srmPValue)
            experiments[id]!.srmPValue = evaluation.figures.srm.pValue
            // The figures first: a reader who sees the decision's catalog (the watcher installs it
            // as soon as catalog.json is renamed) then finds the figures it was taken on.
            do throws(CatalogError) {
                try records.writeState(id, GuardRecords.state(figures: evaluation.figures, pendingClients: experiment.pendingClients, at: now,
                                                              eventsRead: tail!.newestEvent))
            } catch {
                log.error("guard: cannot write the state of \(id): \(error)")
            }
            if let decision = evaluation.decision, let applied = apply(decision, evaluation, experiment.release, now: now) {
                changed = true
                experiments[id]!.update(release: applied, catalog: catalog)
                log.notice("guard \(id): \(decision.rule.rawValue) at stage \(decision.stage)")
                metrics.recordGuardDecision(release: id, rule: decision.rule.rawValue)
            }
            let f = evaluation.figures
            // Gauges are for running guards: one this decision ended leaves them now, not a tick
            // later (which, on a saturated box, can be long after the catalog shows it).
            let gauges = Metrics.GuardGauges(treatmentClients: f.treatment.clients, controlClients: f.control.clients, delta: f.delta, bound: f.bound)
            metrics.recordGuard(release: id, experiments[id]!.release.hasRunningGuard ? gauges : nil)
        }
        return changed
    }

    /// Applies a decision under the publish lock and records it there, once catalog.json holds
    /// it: a manual change that follows (its `manual_override` is written under the same lock)
    /// is then always after it in the decisions log. Nil when a manual change got there first.
    private func apply(_ decision: GuardDecision, _ evaluation: GuardEvaluation, _ release: Release, now: Int64) -> Release? {
        guard let plan = release.guardPlan else { return nil }
        let runtime = plan.runtime.recording(evaluation, at: now)
        do {
            return try store.mutateVersioned({ (catalog) throws(CatalogError) in
                catalog.applyGuardDecision(id: release.id, stage: release.rolloutPercent, runtime: runtime,
                                           rolloutPercent: decision.nextStage, pause: decision.pausesRelease)
            }, whileLocked: { applied in
                guard let applied else { return }
                do throws(CatalogError) {
                    try records.append(decision: GuardRecords.decision(decision, release: applied, figures: evaluation.figures, at: now))
                } catch {
                    // The decision stands (catalog.json holds it); the operator learns from the log that its record is missing.
                    log.error("guard: cannot record a decision: \(error)")
                }
            }).value
        } catch {
            log.error("guard: cannot apply \(decision.rule.rawValue) to \(release.id): \(error)")
            return nil
        }
    }

    /// Copies the bucket's new segments of the days the tail reads (SPEC §18). A failure (the
    /// bucket unreachable) is logged and this evaluation uses what was read before: the objects
    /// not read yet are read at a later poll, none is skipped.
    private mutating func fetchShipped(since firstDay: String, now: Int64) {
        guard shipped != nil, let first = RFC3339.parseDay(firstDay) else { return }
        let days = stride(from: first, through: now, by: 86_400_000).map { String(Timestamp(millisecondsSinceEpoch: $0).rfc3339.prefix(10)) }
        do throws(ShipFailure) {
            let read = try shipped!.poll(days: days)
            if read > 0 { metrics.recordGuardShippedSegments(read) }
        } catch {
            log.error("guard: reading shipped segments: \(error.message)")
        }
    }

    /// Takes `data/guard.lock` without waiting (an OFD lock, released by the kernel when this
    /// process dies); a replica that does not get it stands by.
    private mutating func holdsLock() -> Bool {
        if lockFD >= 0 { return true }
        let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return false }
        guard modeld_ofd_lock(fd, 0) == 0 else {
            close(fd)
            return false
        }
        lockFD = fd
        log.info("guard: this instance evaluates guarded rollouts (holds \(lockPath))")
        return true
    }
}

/// Derives every waiting file of a models directory (SPEC §16.1), recording finished files in
/// groups: at most one catalog write per `recordInterval` however many files finished, so N
/// small files cost about one write per second of work instead of N whole-catalog rewrites —
/// and no more often than every `costFactor` times the last write's own duration, so that on a
/// large catalog (a write of 0.4 s at 3,000 releases) writing stays a fraction of the run.
/// modeld's deriver and `modelctl packs derive` both step one of these. The catalog stays the
/// only state: a kill loses at most the group not yet recorded, which the next run derives
/// again (the encoder is deterministic).
public struct DerivationRun {
    /// Why `step` came back.
    public enum Step {
        /// Call again at once.
        case next
        /// Call again after this many milliseconds: finished files wait for their group's write.
        case wait(milliseconds: Int32)
        /// Everything planned is derived and recorded.
        case done
    }

    public let store: CatalogStore
    public let instance: String
    public let patchBases: Int
    public let recordInterval: Duration
    /// A file this big (times the passes it takes: pack and one per base) is not started while
    /// finished files wait for their write: it could hold them for minutes.
    static let largeJobBytes: Int64 = 8 << 20

    private var jobs: [DerivationJob] = []
    private var pending: [Derivation] = []
    /// Files whose coding failed: not retried by this run (a new run retries).
    private var failed: Set<String> = []
    private var lastWrite: ContinuousClock.Instant?
    private var lastWriteCost: Duration = .zero
    static let costFactor = 4
    /// The catalog version the plan was made from; an older catalog never replaces it.
    private var plannedVersion: Int64 = -1

    public init(store: CatalogStore, instance: String, patchBases: Int, recordInterval: Duration = .seconds(1)) {
        self.store = store
        self.instance = instance
        self.patchBases = patchBases
        self.recordInterval = recordInterval
    }

    /// Plans from `catalog` (the watcher's, or one just loaded) unless it is older than the plan.
    public mutating func plan(_ catalog: Catalog) {
        guard catalog.catalogVersion >= plannedVersion else { return }
        plan(catalog.derivationJobs(patchBases: patchBases), version: catalog.catalogVersion)
    }

    private mutating func plan(_ waiting: [DerivationJob], version: Int64) {
        let inHand = Set(pending.map(\.job.file)).union(failed)
        jobs = waiting.filter { !inHand.contains($0.file) }
        plannedVersion = version
    }

    /// Codes the next file, or writes the finished ones once their interval is over.
    /// `onRecorded` gets each group as it is written; `onFailed` a file whose coding failed
    /// (the run goes on without it). Throws when the catalog cannot be written: the finished
    /// files stay in hand for the next call.
    public mutating func step(now: ContinuousClock.Instant = .now,
                              onRecorded: ([Derivation]) -> Void,
                              onFailed: (DerivationJob, CatalogError) -> Void) throws(CatalogError) -> Step {
        if !pending.isEmpty {
            let due = lastWrite.map { $0.advanced(by: max(recordInterval, lastWriteCost * Self.costFactor)) } ?? now
            if now >= due {
                let written = try store.record(pending, patchBases: patchBases)
                pending = []
                let finished = ContinuousClock.now
                lastWriteCost = now.duration(to: finished)
                lastWrite = finished
                plan(written.jobs, version: written.catalogVersion)
                if !written.recorded.isEmpty { onRecorded(written.recorded) }
                return .next
            }
            if jobs.first.map({ $0.size * Int64(1 + $0.bases.count) >= Self.largeJobBytes }) ?? true {
                return .wait(milliseconds: Int32(clamping: Self.milliseconds(now.duration(to: due)) + 1))
            }
        }
        guard !jobs.isEmpty else { return .done }
        let job = jobs.removeFirst()
        do throws(CatalogError) { pending.append(try store.code(job, instance: instance)) } catch {
            failed.insert(job.file)
            onFailed(job, error)
        }
        return .next
    }

    static func milliseconds(_ d: Duration) -> Int64 {
        d.components.seconds * 1000 + d.components.attoseconds / 1_000_000_000_000_000
    }
}

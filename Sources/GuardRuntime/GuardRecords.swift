import Guardrails
import JSONSupport
import ModelCatalog

/// The evaluator's files (SPEC §11.4, §11.5): `data/guard-decisions.jsonl` (one decision per
/// line, appended and fsynced) and `data/guard-state/<release-id>.json` (the last figures,
/// atomically replaced), both in the §11.5 shapes.
public struct GuardRecords: Sendable {
    public let dataDir: String

    public init(dataDir: String) {
        self.dataDir = dataDir
    }

    public var decisionsPath: String { dataDir + "/guard-decisions.jsonl" }
    public var stateDirectory: String { dataDir + "/guard-state" }
    public func statePath(_ releaseID: String) -> String { stateDirectory + "/" + releaseID.lowercased() + ".json" }

    /// One decision record, with the guard as applied.
    public static func decision(_ d: GuardDecision, release: Release, figures: GuardFigures, at now: Int64) -> [UInt8] {
        decision(d, releaseID: release.id, plan: release.guardPlan, figures: figures, at: now)
    }

    /// The same record for a release known only by its id and guard (the fleet simulator's).
    public static func decision(_ d: GuardDecision, releaseID: String, plan: GuardPlan?, figures: GuardFigures, at now: Int64) -> [UInt8] {
        decision(d, releaseID: releaseID, plan: plan, at: now) { writeFigures(&$0, figures) }
    }

    /// One decision record whose figures `writeFigures` writes (the members `arms` … `tuning_clients`).
    static func decision(_ d: GuardDecision, releaseID: String, plan: GuardPlan?, at now: Int64, figures writeFigures: (inout JSONWriter) -> Void) -> [UInt8] {
        var w = JSONWriter(capacity: 1024)
        w.beginObject()
        w.field("ts", Timestamp(millisecondsSinceEpoch: now).rfc3339)
        w.field("release", releaseID)
        w.field("rule", d.rule.rawValue)
        w.field("stage", d.stage)
        w.key("next_stage")
        if let next = d.nextStage { w.int(next) } else { w.null() }
        writeFigures(&w)
        if let plan {
            w.key("guard")
            w.raw(plan.json(formatTime: { Timestamp(millisecondsSinceEpoch: $0).rfc3339 }))
        }
        w.endObject()
        return w.bytes
    }

    /// The §11.5 status document without `decisions` (the route adds them). `eventsRead`: the
    /// newest event time read per storing instance (SPEC §18), as `"events_read":{"id":"time"}`.
    public static func state(figures: GuardFigures, pendingClients: Int, at now: Int64, eventsRead: [String: String] = [:]) -> [UInt8] {
        var w = JSONWriter(capacity: 512)
        w.beginObject()
        w.field("evaluated_at", Timestamp(millisecondsSinceEpoch: now).rfc3339)
        w.field("pending_clients", pendingClients)
        w.key("events_read")
        w.beginObject()
        for (instance, at) in eventsRead.sorted(by: { $0.key < $1.key }) { w.field(instance, at) }
        w.endObject()
        writeFigures(&w, figures)
        w.endObject()
        return w.bytes
    }

    public static func writeFigures(_ w: inout JSONWriter, _ f: GuardFigures) {
        w.key("arms")
        w.beginObject()
        for (name, arm) in [("treatment", f.treatment), ("control", f.control)] {
            w.key(name)
            w.beginObject()
            w.field("clients", arm.clients)
            w.key("mean")
            number(&w, arm.mean)
            w.key("variance")
            number(&w, arm.variance)
            w.endObject()
        }
        w.endObject()
        w.key("delta")
        number(&w, f.delta)
        w.key("bound")
        number(&w, f.bound)
        w.key("alpha")
        number(&w, f.alpha)
        w.field("tuning_clients", f.tuningClients)
        w.key("srm")
        w.beginObject()
        w.field("treatment", f.srm.treatment)
        w.field("control", f.srm.control)
        w.key("p_value")
        number(&w, f.srm.pValue)
        w.key("cohorts")
        w.beginArray()
        for stage in f.srm.cohorts { w.int(stage) }
        w.endArray()
        w.endObject()
    }

    public static func number(_ w: inout JSONWriter, _ value: Double?) {
        guard let value, value.isFinite else { return w.null() }
        w.raw(Array("\(value)".utf8))
    }

    /// The `manual_override` record of a manual change that stopped `release`'s guard (SPEC
    /// §11.4), with the last evaluation's figures from its state file — the evaluator wrote them
    /// in this very shape — or, before any evaluation, the guard's own with no client yet.
    public func manualOverride(_ release: Release, at now: Int64) -> [UInt8] {
        let decision = GuardDecision(rule: .manualOverride, stage: release.rolloutPercent)
        let figureKeys: Set<String> = ["arms", "delta", "bound", "alpha", "tuning_clients"]
        // A state file that cannot be read or parsed must not block the override (the operator is
        // stopping a rollout): the record then carries the plan's figures with no client yet.
        if let bytes = try? FileIO.read(statePath(release.id)), let state = try? JSONReader.parse(bytes),
           case .object(let members) = state.value, Set(members.map(\.key)).isSuperset(of: figureKeys) {
            return Self.decision(decision, releaseID: release.id, plan: release.guardPlan, at: now) { w in
                // `srm` too when the state file has it (one written before v5 does not).
                for (key, node) in members where figureKeys.contains(key) || key == "srm" {
                    w.key(key)
                    w.raw(Array(bytes[node.range]))
                }
            }
        }
        guard let plan = release.guardPlan else { return Self.decision(decision, releaseID: release.id, plan: nil, at: now) { _ in } }
        let figures = GuardFigures(plan: plan, arms: GuardAccumulator(), settledCohorts: plan.settledCohorts(stage: release.rolloutPercent, now: now))
        return Self.decision(decision, release: release, figures: figures, at: now)
    }

    /// Appends one line and fsyncs it before the decision counts as recorded (a torn line a
    /// crash left is cut off first).
    public func append(decision line: [UInt8]) throws(CatalogError) {
        try FileIO.appendLine(line, to: decisionsPath)
    }

    public func writeState(_ releaseID: String, _ bytes: [UInt8]) throws(CatalogError) {
        try FileIO.makeDirectory(stateDirectory)
        try FileIO.atomicReplace(statePath(releaseID), with: bytes + [UInt8(ascii: "\n")])
    }

    /// The SRM test's running minimum as the last evaluation of a release's guard (begun at
    /// `guardStartedAt`) left it in the state file, so an evaluator that restarts or takes over
    /// keeps the looks before it (docs/decisions/srm-sequential.md). Nil without a file, for one
    /// written before this guard began (an earlier guard of the release), or one it cannot read:
    /// the test then starts afresh, which forgets a past dip but stays valid.
    public func srmPValue(releaseID: String, guardStartedAt: Int64?) -> Double? {
        guard let startedAt = guardStartedAt,
              let bytes = try? FileIO.read(statePath(releaseID)), let state = try? JSONReader.parse(bytes).value,
              let evaluatedAt = state["evaluated_at"]?.stringValue.flatMap(Timestamp.init(rfc3339:)),
              evaluatedAt.millisecondsSinceEpoch >= startedAt
        else { return nil }
        return state["srm"]?["p_value"]?.numberValue
    }

    /// The last `limit` decision lines of one release, oldest first; none before the first
    /// decision (no file), an error when the file cannot be read.
    public func decisions(of releaseID: String, limit: Int = 20) throws(CatalogError) -> [[UInt8]] {
        guard let bytes = try FileIO.read(decisionsPath) else { return [] }
        let needle = Array("\"release\":\"\(releaseID.lowercased())\"".utf8)
        let lines = bytes.split(separator: UInt8(ascii: "\n")).filter { line in
            Array(line).lowercasedASCII().firstRange(of: needle) != nil
        }
        return lines.suffix(limit).map(Array.init)
    }
}

private extension Array where Element == UInt8 {
    func lowercasedASCII() -> [UInt8] { map { (65...90).contains($0) ? $0 + 32 : $0 } }
}

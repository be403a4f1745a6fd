import Guardrails
import ModelCatalog

/// The §11.5 status document of one guarded release, the same bytes for `GET
/// /admin/models/ID/guard` and `modelctl experiment status --data-dir` (any replica, or none,
/// can answer): the guard's place from the catalog, the last evaluation's figures from
/// `data/guard-state/`, the last 20 decisions from `data/guard-decisions.jsonl`.
public enum GuardStatusDocument {
    public enum Failure: Error, Equatable {
        case unknownRelease(String)
        case noGuard(String)

        public var message: String {
            switch self {
            case .unknownRelease(let id): "no release \(id)"
            case .noGuard(let id): "release \(id) has no guard"
            }
        }
    }

    public static func json(id: String, in catalog: Catalog, dataDir: String) throws(Failure) -> [UInt8] {
        guard let r = catalog.release(id: id) else { throw .unknownRelease(id) }
        guard let plan = r.guardPlan else { throw .noGuard(r.id) }
        let records = GuardRecords(dataDir: dataDir)
        var w = JSONWriter(capacity: 2048)
        w.beginObject()
        w.field("release", r.id)
        w.field("status", plan.runtime.status.rawValue)
        w.field("stage", r.rolloutPercent)
        w.key("stage_started_at")
        if let t = plan.runtime.stageStartedAt { w.string(Timestamp(millisecondsSinceEpoch: t).rfc3339) } else { w.null() }
        var figures = JSONWriter(capacity: 512)
        figures.beginObject()
        figures.field("pending_clients", 0)
        GuardRecords.writeFigures(&figures, GuardFigures(plan: plan, arms: GuardAccumulator()))
        figures.endObject()
        // The state file is one JSON object the evaluator wrote; its members join this one's.
        let state = (try? FileIO.read(records.statePath(r.id))).flatMap { $0.count > 2 ? $0 : nil } ?? figures.bytes
        w.key("decisions")
        w.beginArray()
        for line in records.decisions(of: r.id) { w.raw(line) }
        w.endArray()
        w.endObject()
        let members = state[1..<(state.lastIndex(of: UInt8(ascii: "}")) ?? 1)]
        return Array(w.bytes.dropLast()) + [UInt8(ascii: ",")] + members + [UInt8(ascii: "}")]
    }
}

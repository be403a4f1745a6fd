import Guardrails
import JSONSupport
import ModelCatalog

/// The §11.5 status document of one guarded release, the same bytes for `GET
/// /admin/models/ID/guard` and `modelctl experiment status --data-dir` (any replica, or none,
/// can answer): the guard's place from the catalog, the last evaluation's figures from
/// `data/guard-state/`, the last 20 decisions from `data/guard-decisions.jsonl`.
public enum GuardStatusDocument {
    public enum Failure: Error, Equatable {
        case unknownRelease(String)
        case noGuard(String)
        /// The evaluator's files exist but cannot be read (EIO, EACCES): an answer from the
        /// plan alone would pass off "no evaluation yet" as the truth.
        case unreadable(CatalogError)

        public var message: String {
            switch self {
            case .unknownRelease(let id): "no release \(id)"
            case .noGuard(let id): "release \(id) has no guard"
            case .unreadable(let error): error.message
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
        // Not evaluated yet: no client, and no cohort settled as far as anyone has judged.
        GuardRecords.writeFigures(&figures, GuardFigures(plan: plan, arms: GuardAccumulator(), settledCohorts: 0))
        figures.endObject()
        // The state file is one JSON object the evaluator wrote; its members join this one's.
        let state: [UInt8]
        let decisions: [[UInt8]]
        do throws(CatalogError) {
            // Only a missing state file means "not evaluated yet" (FileIO.read's nil).
            state = try FileIO.read(records.statePath(r.id)).flatMap { $0.count > 2 ? $0 : nil } ?? figures.bytes
            decisions = try records.decisions(of: r.id)
        } catch {
            throw .unreadable(error)
        }
        w.key("decisions")
        w.beginArray()
        for line in decisions { w.raw(line) }
        w.endArray()
        w.endObject()
        let members = state[1..<(state.lastIndex(of: UInt8(ascii: "}")) ?? 1)]
        return Array(w.bytes.dropLast()) + [UInt8(ascii: ",")] + members + [UInt8(ascii: "}")]
    }
}

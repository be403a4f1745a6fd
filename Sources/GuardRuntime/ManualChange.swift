import Guardrails
import HTTPWire
import ModelCatalog

/// A manual change of a release's rollout or state — `PATCH`/`DELETE /admin/models/ID` and
/// every `modelctl rollout/pause/resume/retire`, through a server or offline, and the console's
/// buttons, which call the admin API — applied and, when it stopped a guard (a running one, or
/// one that paused the release it resumes), recorded (SPEC §11.4: the operator always wins, and the
/// guard records `manual_override`). The record is written by whoever applies the change,
/// under the publish lock once catalog.json holds it, so it exists exactly once per stop
/// whether or not an evaluator ever saw the guard (a change right after the guarded publish,
/// on a replica, offline, or while no instance evaluates).
public enum ManualChange {
    /// `ifRevision`: the `If-Match` of the request (SPEC §15.1); a release that changed since
    /// → 409 `conflict` and nothing changes.
    public static func apply(_ patch: ReleasePatch, to id: String, ifRevision: EntityTagList? = nil, store: CatalogStore,
                             records: GuardRecords, now: Timestamp = .now()) throws(CatalogError) -> Versioned<Release> {
        try change(id, ifRevision: ifRevision, store: store, records: records, now: now) { (catalog) throws(CatalogError) in
            try catalog.apply(patch, to: id, now: now)
        }
    }

    /// `DELETE /admin/models/ID` and `modelctl retire`: retired is final.
    public static func retire(_ id: String, ifRevision: EntityTagList? = nil, store: CatalogStore, records: GuardRecords,
                              now: Timestamp = .now()) throws(CatalogError) -> Versioned<Release> {
        try apply(ReleasePatch(state: .retired), to: id, ifRevision: ifRevision, store: store, records: records, now: now)
    }

    /// `DELETE /admin/models/ID/guard`, the console's "Stop guard": rollout and state stay, the
    /// guard stops and records `manual_override`, as after any manual change.
    public static func stopGuard(_ id: String, ifRevision: EntityTagList? = nil, store: CatalogStore, records: GuardRecords,
                                 now: Timestamp = .now()) throws(CatalogError) -> Versioned<Release> {
        try change(id, ifRevision: ifRevision, store: store, records: records, now: now) { (catalog) throws(CatalogError) in
            try catalog.stopGuard(id: id)
        }
    }

    private static func change(_ id: String, ifRevision: EntityTagList?, store: CatalogStore, records: GuardRecords, now: Timestamp,
                               _ body: (inout Catalog) throws(CatalogError) -> Release) throws(CatalogError) -> Versioned<Release> {
        let change = try store.mutateVersioned({ (catalog) throws(CatalogError) -> Change in
            try catalog.check(ifRevision, of: id)
            let before = catalog.release(id: id)?.guardPlan?.runtime.status
            let release = try body(&catalog)
            let after = release.guardPlan?.runtime.status
            return Change(release: release, stoppedGuard: before != .stopped && after == .stopped)
        }, whileLocked: { (change) throws(CatalogError) in
            guard change.stoppedGuard else { return }
            do throws(CatalogError) {
                try records.append(decision: records.manualOverride(change.release, at: now.millisecondsSinceEpoch))
            } catch {
                throw CatalogError(error.code, "the change was applied but its manual_override record was not: \(error.message)")
            }
        })
        return Versioned(change.value.release, catalogVersion: change.catalogVersion, publicBaseURL: change.publicBaseURL)
    }

    private struct Change: Sendable {
        let release: Release
        let stoppedGuard: Bool
    }
}

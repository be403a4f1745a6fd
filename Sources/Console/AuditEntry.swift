import JSONSupport
import ModelCatalog

/// One line of `data/audit.jsonl` (SPEC §15): who (the session's handle and address), when,
/// what, on which release, and the release's steerable fields before → after. Never a token:
/// neither the admin token nor the session cookie nor the CSRF token is in any field.
public enum AuditEntry {
    public static func json(time: Timestamp, action: String, release: String, before: Release?, after: Release?,
                            session: String, peer: String) -> [UInt8] {
        var w = JSONWriter(capacity: 512)
        w.beginObject()
        w.field("ts", time.rfc3339)
        w.field("action", action)
        w.field("release", release)
        w.key("before")
        summary(before, &w)
        w.key("after")
        summary(after, &w)
        w.field("session", session)
        w.field("peer", peer)
        w.endObject()
        return w.bytes
    }

    /// The fields an operator steers, as they stood (null: the release did not exist yet).
    static func summary(_ r: Release?, _ w: inout JSONWriter) {
        guard let r else { return w.null() }
        w.beginObject()
        w.field("state", r.state.rawValue)
        w.field("rollout_percent", r.rolloutPercent)
        w.field("channel", r.channel)
        w.field("sdk_min", r.sdkMin)
        w.key("sdk_max")
        if let max = r.sdkMax { w.string(max) } else { w.null() }
        w.field("label", r.label)
        w.key("variants")
        w.stringArray(r.variants.filter { $0.removedAt == nil }.map(\.name))
        if let plan = r.guardPlan { w.field("guard_status", plan.runtime.status.rawValue) }
        w.endObject()
    }

    /// The verb an operator would use for a PATCH: pause, resume, rollout, or patch.
    public static func action(forPatch patch: ReleasePatch) -> String {
        switch (patch.state, patch.rolloutPercent) {
        case (.paused?, nil): "pause"
        case (.active?, nil): "resume"
        case (nil, _?): "rollout"
        default: "patch"
        }
    }
}

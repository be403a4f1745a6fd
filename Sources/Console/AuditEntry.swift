import AccessTokens
import JSONSupport
import ModelCatalog

/// One line of `data/audit.jsonl` (SPEC §15, §15.1): when, what, who (`actor`: the token's
/// name, null for a failed sign-in), from where (`peer`: the client address), through which
/// console session if any, and on what: a release (its steerable fields before → after) or a
/// token (its name and role). Never a secret: no token, session cookie or CSRF token in any field.
public enum AuditEntry {
    public enum Subject: Sendable {
        case release(String, before: Release?, after: Release?)
        case token(name: String, role: Role)
    }

    public static func json(time: Timestamp, action: String, actor: String?, peer: String, session: String?,
                            subject: Subject?) -> [UInt8] {
        var w = JSONWriter(capacity: 512)
        w.beginObject()
        w.field("ts", time.rfc3339)
        w.field("action", action)
        w.key("actor")
        if let actor { w.string(actor) } else { w.null() }
        w.field("peer", peer)
        if let session { w.field("session", session) }
        switch subject {
        case .release(let id, let before, let after)?:
            w.field("release", id)
            w.key("before")
            summary(before, &w)
            w.key("after")
            summary(after, &w)
        case .token(let name, let role)?:
            w.field("token", name)
            w.field("role", role.rawValue)
        case nil:
            break
        }
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

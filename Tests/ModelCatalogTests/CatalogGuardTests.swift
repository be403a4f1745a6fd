import Guardrails
@testable import ModelCatalog
import Testing

/// The guard on a release (SPEC §11.1, §11.4): stored, validated naming the field, overlapping
/// running guards refused, manual rollout/state changes stop it.
@Suite struct CatalogGuardTests {
    private static let metric = #"{"metric":{"name":"upsell","outcome":"purchased"}"#

    private func plan(_ json: String = metric + "}") throws -> GuardPlan {
        try GuardPlan(json: Array(json.utf8))
    }

    private func guarded(_ seq: Int64, min: String = "1.0", max: String? = nil, channel: String = "stable") throws -> Release {
        var r = rel(seq, min: min, max: max, channel: channel, percent: 1)
        r.guardPlan = try plan().started(at: t0)
        return r
    }

    private func catalog(_ releases: [Release]) throws -> Catalog {
        var c = Catalog()
        for r in releases { try c.append { _ in r } }
        return c
    }

    @Test func guardedPublish_startsAtTheFirstStage_whateverRolloutSays_SPEC11_1() throws {
        let guardJSON = Self.metric + #","stages":[2,10]}"#
        let r = try PublishRequest(parameters: ["sdk_min": "1.0", "ext": "bin", "rollout": "80", "guard": guardJSON])
        #expect(r.rolloutPercent == 2)
        #expect(r.guardPlan?.stages == [2, 10])
        // A given rollout is still validated.
        #expect(throws: CatalogError.invalid("rollout", "must be an integer 0–100")) {
            try PublishRequest(parameters: ["sdk_min": "1.0", "ext": "bin", "rollout": "x", "guard": guardJSON])
        }
    }

    @Test(arguments: [
        ("{", "guard"),
        (#"{"metric":{"name":"a","kind":"median"}}"#, "guard.metric.kind"),
        (metric + #","stages":[5,3]}"#, "guard.stages[1]"),
        (metric + #","stages":[10,60]}"#, "guard.stages[1]"),
        (metric + #","alpha":0.7}"#, "guard.alpha"),
        (metric + #","colour":"red"}"#, "guard.colour"),
        (metric + #","status":"promoted"}"#, "guard.status"),
        (#"{"stages":[1]}"#, "guard.metric"),
    ])
    func badGuard_isInvalidParameterNamingTheField_SPEC11_1(json: String, field: String) throws {
        let e = #expect(throws: CatalogError.self) { try PublishRequest(parameters: ["sdk_min": "1.0", "ext": "bin", "guard": json]) }
        #expect(e?.code == .invalidParameter && e?.parameter == field, "\(String(describing: e))")
        let p = #expect(throws: CatalogError.self) { try ReleasePatch(json: Array(#"{"guard":\#(json)}"#.utf8)) }
        // A PATCH body that is not JSON at all is the body's fault, not the guard's.
        #expect(p?.code == .invalidParameter && p?.parameter == (json == "{" ? "body" : field), "\(String(describing: p))")
    }

    @Test func catalogWithGuard_roundTrips_andOldCatalogsLoadUnchanged_SPEC11_1() throws {
        let old = try catalog([rel(1), rel(2, percent: 10)])
        let oldBytes = old.encoded()
        #expect(!String(decoding: oldBytes, as: UTF8.self).contains("guard"))
        #expect(try Catalog(decoding: oldBytes) == old)
        #expect(try Catalog(decoding: oldBytes).encoded() == oldBytes)

        let c = try catalog([rel(1), try guarded(2)])
        let decoded = try Catalog(decoding: c.encoded())
        #expect(decoded == c)
        let g = try #require(decoded.releases[1].guardPlan)
        #expect(g.runtime == GuardPlan.Runtime(status: .collecting, startedAt: t0.millisecondsSinceEpoch, stageStartedAt: t0.millisecondsSinceEpoch))
        #expect(g.minClientsPerArm == GuardPlan.defaultMinClientsPerArm)
    }

    @Test func corruptStoredGuard_refusesTheCatalogNamingTheField_SPEC8() throws {
        let text = String(decoding: try catalog([try guarded(1)]).encoded(), as: UTF8.self)
            .replacing(#""status":"collecting""#, with: #""status":"dreaming""#)
        let e = #expect(throws: CatalogError.self) { try Catalog(decoding: Array(text.utf8)) }
        #expect(e?.code == .corruptCatalog && e?.parameter == "releases[0].guard.status", "\(String(describing: e))")
    }

    @Test func overlappingRunningGuard_is409ExperimentRunning_SPEC11_1() throws {
        var c = try catalog([try guarded(1, min: "2.0", max: "3.0")])
        for (min, max) in [("1.0", nil), ("2.5", "2.6"), ("1.0", "2.0.1"), ("2.9", nil)] as [(String, String?)] {
            let g = try guarded(2, min: min, max: max)
            let e = #expect(throws: CatalogError.self) { try c.append { _ in g } }
            #expect(e?.code == .experimentRunning && e?.httpStatus == 409, "\(min)..<\(max ?? "")")
        }
        // Disjoint ranges, another channel, and unguarded releases are fine.
        for r in [try guarded(2, min: "3.0"), try guarded(3, min: "1.0", max: "2.0"), try guarded(4, channel: "beta"), rel(5, percent: 10)] {
            try c.append { _ in r }
        }
        // A stopped guard no longer blocks: a manual pause stops it.
        _ = try c.apply(ReleasePatch(state: .paused), to: rel(4).id, now: t0)
        let after = try guarded(6, channel: "beta")
        try c.append { _ in after }
    }

    @Test func manualRolloutOrState_stopsTheGuard_labelAndSdkMaxDoNot_SPEC11_4() throws {
        for patch in [ReleasePatch(rolloutPercent: 5), ReleasePatch(state: .paused), ReleasePatch(state: .retired)] {
            var c = try catalog([try guarded(1)])
            let r = try c.apply(patch, to: rel(1).id, now: t0)
            #expect(r.guardPlan?.runtime.status == .stopped, "\(patch)")
            #expect(!r.hasRunningGuard)
        }
        var c = try catalog([try guarded(1)])
        let r = try c.apply(ReleasePatch(sdkMax: .some("9.0"), label: "x"), to: rel(1).id, now: t0)
        #expect(r.guardPlan?.runtime.status == .collecting)
    }

    /// SPEC §11.4 v5: resuming a release its guard paused stops that finished guard; other
    /// changes to it, and resuming a release paused by hand or by an SRM that only notified, do not.
    @Test(arguments: [
        (GuardStatus.pausedRegression, GuardPlan.SRMAction.notify, ReleasePatch(state: .active), GuardStatus.stopped),
        (.srm, .pause, ReleasePatch(state: .active), .stopped),
        (.pausedRegression, .notify, ReleasePatch(rolloutPercent: 5), .pausedRegression),
        (.pausedRegression, .notify, ReleasePatch(state: .retired), .pausedRegression),
        (.promoted, .notify, ReleasePatch(state: .active), .promoted),
        (.stopped, .notify, ReleasePatch(state: .active), .stopped),
    ])
    func resumingAReleaseItsGuardPaused_stopsTheGuard_SPEC11_4(
        _ c: (status: GuardStatus, onSRM: GuardPlan.SRMAction, patch: ReleasePatch, expected: GuardStatus)
    ) throws {
        var r = rel(1, percent: 1, state: .paused)
        r.guardPlan = try plan(Self.metric + #","on_srm":"\#(c.onSRM.rawValue)"}"#).started(at: t0)
        r.guardPlan?.runtime.status = c.status
        var catalog = try catalog([r])
        #expect(try catalog.apply(c.patch, to: r.id, now: t0).guardPlan?.runtime.status == c.expected, "\(c)")
    }

    @Test func patchGuard_startsAtFirstStage_onlyBelow100_andAlone_SPEC11_1() throws {
        var c = try catalog([rel(1, percent: 30), rel(2)])
        let body = #"{"guard":\#(Self.metric),"stages":[5,20]}}"#
        let r = try c.apply(try ReleasePatch(json: Array(body.utf8)), to: rel(1).id, now: t0.adding(days: 1))
        #expect(r.rolloutPercent == 5 && r.guardPlan?.runtime.status == .collecting)
        #expect(r.guardPlan?.runtime.stageStartedAt == t0.adding(days: 1).millisecondsSinceEpoch)
        let full = #expect(throws: CatalogError.self) { try c.apply(try ReleasePatch(json: Array(body.utf8)), to: rel(2).id, now: t0) }
        #expect(full?.code == .invalidParameter && full?.parameter == "guard")
        let both = #expect(throws: CatalogError.self) {
            try ReleasePatch(json: Array(#"{"rollout_percent":3,"guard":\#(Self.metric)}}"#.utf8))
        }
        #expect(both?.parameter == "guard")
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Testing
@testable import Guardrails

/// The stored time format is the catalog's (RFC 3339, via its Timestamp); here any injective
/// text does: "@<milliseconds>".
func testFormatTime(_ ms: Int64) -> String { "@\(ms)" }
func testParseTime(_ text: String) -> Int64? { text.hasPrefix("@") ? Int64(text.dropFirst()) : nil }

@Suite struct GuardPlanTests {
    static let specExample = #"""
        {"metric": {"name": "upsell_prompt", "outcome": "purchased", "kind": "rate",
                    "direction": "higher_is_better"},
         "stages": [1, 5, 10, 25, 50], "min_stage_seconds": 86400, "min_clients_per_arm": 1000,
         "alpha": 0.05, "tuning_clients": 20000, "regression_margin": 0,
         "goal": "guard", "max_seconds": 1209600, "no_data_seconds": 172800,
         "on_srm": "notify", "settle_seconds": 14400}
        """#

    func plan(_ json: String) throws(GuardPlanError) -> GuardPlan { try GuardPlan(json: Array(json.utf8)) }

    @Test func specExample_decodesEveryField_SPEC11_1() throws {
        let p = try plan(Self.specExample)
        #expect(p.metric == (try GuardPlan.Metric(name: "upsell_prompt", outcome: "purchased", kind: .rate, direction: .higherIsBetter)))
        #expect(p.stages == [1, 5, 10, 25, 50])
        #expect(p.minStageSeconds == 86_400 && p.minClientsPerArm == 1_000 && p.alpha == 0.05 && p.tuningClients == 20_000)
        #expect(p.regressionMargin == 0 && p.goal == .guard && p.maxSeconds == 1_209_600 && p.noDataSeconds == 172_800)
        #expect(p.onSRM == .notify && p.runtime == GuardPlan.Runtime())
    }

    /// "Defaults as shown (only `metric` is required)": the SPEC's example is the defaults.
    @Test func onlyMetric_givesTheSpecDefaults_SPEC11_1() throws {
        let minimal = try plan(#"{"metric": {"name": "upsell_prompt", "outcome": "purchased"}}"#)
        #expect(minimal == (try plan(Self.specExample)))
        let mean = try plan(#"{"metric": {"name": "latency_ms", "kind": "mean", "direction": "lower_is_better"}}"#)
        #expect(mean.metric.kind == .mean && mean.metric.outcome == nil && mean.metric.direction == .lowerIsBetter)
    }

    @Test func canonicalJSON_sortedAndComplete() throws {
        let p = try plan(#"{"metric": {"name": "a \"b\"/c", "outcome": "ok"}, "alpha": 0.1, "stages": [2, 20]}"#)
        let text = String(decoding: p.json(formatTime: testFormatTime), as: UTF8.self)
        #expect(text == #"{"alpha":0.1,"goal":"guard","max_seconds":1209600,"metric":{"direction":"higher_is_better","kind":"rate","name":"a \"b\"/c","outcome":"ok"},"min_clients_per_arm":1000,"min_stage_seconds":86400,"no_data_seconds":172800,"on_srm":"notify","regression_margin":0,"settle_seconds":14400,"stages":[2,20],"status":"collecting","tuning_clients":20000}"#)
    }

    /// catalog.json round trip with the runtime fields (§11.4), through the public Document
    /// a release DTO embeds.
    @Test func storedRoundTrip_keepsRuntimeFields_SPEC11_4() throws {
        var p = try plan(#"{"metric": {"name": "m", "kind": "mean"}, "goal": "prove", "on_srm": "pause", "regression_margin": 0.25}"#)
        p.runtime = .init(status: .healthy, startedAt: 1_700_000_000_000, stageStartedAt: 1_700_000_500_123)
        let bytes = p.json(formatTime: testFormatTime)
        let doc = try JSONDecoder().decode(GuardPlan.Document.self, from: Data(bytes))
        #expect(try GuardPlan(stored: doc, parseTime: testParseTime) == p)
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.contains(#""stage_started_at":"@1700000500123","stages":[1,5,10,25,50],"started_at":"@1700000000000","status":"healthy""#))
        // Same plan, same bytes: the catalog's ETag must not move on a re-encode.
        #expect(try GuardPlan(stored: doc, parseTime: testParseTime).json(formatTime: testFormatTime) == bytes)
    }

    struct Bad: Sendable, CustomTestStringConvertible {
        let json: String
        let field: String
        var testDescription: String { json }
        init(_ json: String, _ field: String) { self.json = json; self.field = field }
    }

    static let m = #""metric": {"name": "m", "outcome": "o"}"#

    /// Every way an operator's guard can be wrong names the field (400 invalid_parameter, §11.1).
    @Test(arguments: [
        Bad("{", "guard"),
        Bad("[1]", "guard"),
        Bad("{}", "guard.metric"),
        Bad(#"{"metric": 5}"#, "guard.metric"),
        Bad(#"{"metric": {"outcome": "o"}}"#, "guard.metric.name"),
        Bad(#"{"metric": {"name": "", "outcome": "o"}}"#, "guard.metric.name"),
        Bad(#"{"metric": {"name": 7, "outcome": "o"}}"#, "guard.metric.name"),
        Bad(#"{"metric": {"name": "m"}}"#, "guard.metric.outcome"),
        Bad(#"{"metric": {"name": "m", "outcome": ""}}"#, "guard.metric.outcome"),
        Bad(#"{"metric": {"name": "m", "kind": "mean", "outcome": "o"}}"#, "guard.metric.outcome"),
        Bad(#"{"metric": {"name": "m", "outcome": "o", "kind": "ratio"}}"#, "guard.metric.kind"),
        Bad(#"{"metric": {"name": "m", "outcome": "o", "direction": "up"}}"#, "guard.metric.direction"),
        Bad(#"{"metric": {"name": "m", "outcome": "o", "outcom": "p"}}"#, "guard.metric.outcom"),
        Bad(#"{\#(m), "stage": [1]}"#, "guard.stage"),
        Bad(#"{\#(m), "stages": []}"#, "guard.stages"),
        Bad(#"{\#(m), "stages": "1,5"}"#, "guard.stages"),
        Bad(#"{\#(m), "stages": [0, 5]}"#, "guard.stages[0]"),
        Bad(#"{\#(m), "stages": [1, 5, 5]}"#, "guard.stages[2]"),
        Bad(#"{\#(m), "stages": [10, 5]}"#, "guard.stages[1]"),
        Bad(#"{\#(m), "stages": [1, 51]}"#, "guard.stages[1]"),
        Bad(#"{\#(m), "stages": [1, "5"]}"#, "guard.stages[1]"),
        Bad(#"{\#(m), "stages": [1, 2.5]}"#, "guard.stages[1]"),
        Bad(#"{\#(m), "alpha": 0}"#, "guard.alpha"),
        Bad(#"{\#(m), "alpha": 0.5}"#, "guard.alpha"),
        Bad(#"{\#(m), "alpha": "0.05"}"#, "guard.alpha"),
        Bad(#"{\#(m), "min_stage_seconds": 0}"#, "guard.min_stage_seconds"),
        Bad(#"{\#(m), "min_stage_seconds": 1.5}"#, "guard.min_stage_seconds"),
        Bad(#"{\#(m), "min_clients_per_arm": 0}"#, "guard.min_clients_per_arm"),
        Bad(#"{\#(m), "tuning_clients": -5}"#, "guard.tuning_clients"),
        Bad(#"{\#(m), "regression_margin": -0.01}"#, "guard.regression_margin"),
        Bad(#"{\#(m), "goal": "win"}"#, "guard.goal"),
        Bad(#"{\#(m), "max_seconds": 0}"#, "guard.max_seconds"),
        Bad(#"{\#(m), "no_data_seconds": 400000000}"#, "guard.no_data_seconds"),
        Bad(#"{\#(m), "on_srm": "rollback"}"#, "guard.on_srm"),
        Bad(#"{\#(m), "settle_seconds": -1}"#, "guard.settle_seconds"),
        Bad(#"{\#(m), "settle_seconds": 400000000}"#, "guard.settle_seconds"),
        Bad(#"{\#(m), "settle_seconds": "4h"}"#, "guard.settle_seconds"),
        Bad(#"{\#(m), "status": "promoted"}"#, "guard.status"),
        Bad(#"{\#(m), "stage_started_at": "@1"}"#, "guard.stage_started_at"),
    ])
    func invalidGuard_namesTheField_SPEC11_1(_ bad: Bad) {
        #expect(throws: GuardPlanError.self) { try plan(bad.json) }
        do {
            _ = try plan(bad.json)
        } catch {
            #expect(error.field == bad.field, "\(error)")
            #expect(!error.message.isEmpty)
        }
    }

    @Test func unknownKey_listsTheKnownOnes() {
        #expect(throws: GuardPlanError("guard.stage", "unknown field (known: alpha, goal, max_seconds, metric, min_clients_per_arm, min_stage_seconds, no_data_seconds, on_srm, regression_margin, settle_seconds, stage_started_at, stages, started_at, status, tuning_clients)")) {
            try plan(#"{\#(Self.m), "stage": [1]}"#)
        }
    }

    @Test func storedGuard_badRuntimeFieldsNamed_SPEC11_4() throws {
        func stored(_ json: String) throws -> GuardPlan {
            try GuardPlan(stored: JSONDecoder().decode(GuardPlan.Document.self, from: Data(json.utf8)), parseTime: testParseTime)
        }
        #expect(throws: GuardPlanError.self) { try stored(#"{\#(Self.m), "status": "winning"}"#) }
        #expect(throws: GuardPlanError("guard.started_at", "is not a valid time")) { try stored(#"{\#(Self.m), "started_at": "yesterday"}"#) }
        #expect(try stored(#"{\#(Self.m), "status": "srm", "stage_started_at": "@5"}"#).runtime == .init(status: .srm, stageStartedAt: 5))
    }

    /// Embedded in a larger document (a release in catalog.json, a PATCH body), the guard's
    /// errors still name the guard's own field.
    @Test func embeddedDocument_errorsStillNameTheField() {
        struct Release: Decodable { var id: String; var `guard`: GuardPlan.Document? }
        let json = #"{"id": "x", "guard": {"metric": {"name": "m", "outcome": "o"}, "stages": [1, true]}}"#
        #expect(throws: GuardPlanError("guard.stages[1]", "must be an integer")) {
            try JSONDecoder().decode(Release.self, from: Data(json.utf8))
        }
        #expect((try? JSONDecoder().decode(Release.self, from: Data(#"{"id": "x"}"#.utf8)))?.guard == nil)
    }

    @Test func isFinished_perStatus_SPEC11_4() throws {
        var p = try plan(#"{\#(Self.m)}"#)
        let finished = GuardStatus.allCases.filter { p.runtime.status = $0; return p.isFinished }
        #expect(finished == [.pausedRegression, .promoted, .inconclusive, .stopped])
        let pausing = try plan(#"{\#(Self.m), "on_srm": "pause"}"#)
        var q = pausing
        q.runtime.status = .srm
        #expect(q.isFinished)
    }

    @Test func stageAfter() throws {
        let p = try plan(#"{\#(Self.m), "stages": [1, 5, 50]}"#)
        #expect(p.stage(after: 1) == 5 && p.stage(after: 5) == 50 && p.stage(after: 50) == nil)
    }
}

@testable import Console
import Guardrails
import Testing

/// The guard panel's words (SPEC §15.1): a verdict with its numbers for every status, and what
/// still blocks the next stage.
@Suite struct GuardVerdictTests {
    private func plan(_ status: GuardStatus, kind: GuardPlan.Metric.Kind = .rate, goal: GuardPlan.Goal = .guard,
                      onSRM: GuardPlan.SRMAction = .notify, stageStartedAt: Int64? = 0) throws -> GuardPlan {
        try GuardPlan(metric: try .init(name: "upsell", outcome: kind == .rate ? "purchased" : nil, kind: kind),
                      stages: [5, 10, 25], minStageSeconds: 3_600, minClientsPerArm: 1_000, goal: goal, onSRM: onSRM,
                      runtime: .init(status: status, startedAt: 0, stageStartedAt: stageStartedAt))
    }

    private func point(_ rule: String?, at time: String = "2026-11-27T12:17:49.120Z", stage: Int = 10, next: Int? = nil,
                       means: (Double, Double) = (0.274, 0.514), clients: (Int, Int) = (1_204, 1_190),
                       delta: Double? = -0.24, bound: Double? = 0.2301) -> GuardReport.Point {
        GuardReport.Point(at: 0, time: time, rule: rule, stage: stage, nextStage: next,
                          treatment: .init(clients: clients.0, mean: means.0), control: .init(clients: clients.1, mean: means.1),
                          delta: delta, bound: bound)
    }

    @Test(arguments: [
        (GuardStatus.pausedRegression, "pause", "paused 12:17:49: worse, 27.4 % vs 51.4 %, Δ −0.24 ± 0.23"),
        (.promoted, "promote", "promoted 12:17:49 to 100 %: no harm shown, 27.4 % vs 51.4 %, Δ −0.24 ± 0.23"),
        (.inconclusive, "inconclusive", "inconclusive 12:17:49: not proven better within 14 d, holding 10 %, 27.4 % vs 51.4 %, Δ −0.24 ± 0.23"),
        (.stopped, "manual_override", "stopped 12:17:49 by a manual change at 10 %, last figures 27.4 % vs 51.4 %, Δ −0.24 ± 0.23"),
        (.srm, "srm", "sample ratio mismatch 12:17:49: 1,204 vs 1,190 clients against 1:1; notified only, the guard keeps watching"),
        (.noData, "no_data", "no data 12:17:49: fewer than 1,000 clients per arm after 2 d at 10 % (1,204 vs 1,190); holding the stage"),
    ])
    func finishedOrFlagged_saysWhenAndWhy_SPEC15_1(status: GuardStatus, rule: String, expected: String) throws {
        let verdict = GuardVerdict(plan: try plan(status), stage: 10, points: [point(nil, at: "2026-11-27T12:00:00Z"), point(rule)])
        #expect(verdict.text == expected)
    }

    @Test func runningStatuses_sayWhereTheGuardStands() throws {
        #expect(GuardVerdict(plan: try plan(.collecting), stage: 5, points: []).text == "collecting at 5 %: no client counted yet")
        let empty = point(nil, means: (0, 0), clients: (0, 0), delta: nil, bound: nil)
        #expect(GuardVerdict(plan: try plan(.collecting), stage: 5, points: [empty]).text == "collecting at 5 %: no client counted yet")
        let early = point(nil, stage: 5, means: (0.12, 0.115), clients: (312, 298), delta: 0.005, bound: 0.041)
        #expect(GuardVerdict(plan: try plan(.collecting), stage: 5, points: [early]).text
                == "collecting at 5 %: 12.0 % vs 11.5 %, Δ +0.005 ± 0.041 — no verdict before 1,000 clients per arm")
        let advanced = [point("advance", stage: 5, next: 10), point(nil, at: "2026-11-27T12:30:00Z", means: (0.3, 0.29), delta: 0.01, bound: 0.02)]
        #expect(GuardVerdict(plan: try plan(.healthy), stage: 10, points: advanced).text
                == "advanced 12:17:49 to 10 %: no harm shown, 30.0 % vs 29.0 %, Δ +0.010 ± 0.020")
        #expect(GuardVerdict(plan: try plan(.healthy), stage: 5, points: [point(nil, delta: 0, bound: 0.5)]).text
                == "healthy at 5 %: no harm shown, 27.4 % vs 51.4 %, Δ 0.00 ± 0.50")
    }

    @Test func meanMetrics_proveGoal_andAnSRMThatPaused() throws {
        let mean = point("promote", means: (12.5, 13.25), delta: -0.75, bound: 0.3)
        #expect(GuardVerdict(plan: try plan(.promoted, kind: .mean, goal: .prove), stage: 25, points: [mean]).text
                == "promoted 12:17:49 to 100 %: proven better, 12.500 vs 13.250, Δ −0.75 ± 0.30")
        #expect(GuardVerdict(plan: try plan(.srm, onSRM: .pause), stage: 10, points: [point("srm")]).text
                == "sample ratio mismatch 12:17:49: 1,204 vs 1,190 clients against 1:1; the release is paused")
    }

    @Test func progress_namesSoakLeftAndMissingClients_untilTheGuardFinishes() throws {
        let short = point(nil, clients: (400, 1_200))
        let p = GuardVerdict(plan: try plan(.collecting, stageStartedAt: 0), stage: 5, points: [short])
        #expect(p.progress(nowMillis: 1_500_000) == "Stage 5 % (1 of 3) for 25 min. Next: 10 % — waiting for 35 min of soak left and treatment 600 more clients.")
        let ready = GuardVerdict(plan: try plan(.healthy, stageStartedAt: 0), stage: 25, points: [point(nil)])
        #expect(ready.progress(nowMillis: 7_200_000) == "Stage 25 % (3 of 3) for 2 h. Next: promotion to 100 % at the next evaluation.")
        #expect(GuardVerdict(plan: try plan(.pausedRegression), stage: 10, points: []).progress(nowMillis: 0) == nil)
    }

    @Test func durationsAndCounts() {
        #expect(GuardVerdict.duration(seconds: 0) == "0 s" && GuardVerdict.duration(seconds: 59) == "59 s")
        #expect(GuardVerdict.duration(seconds: 3_660) == "1 h 1 min" && GuardVerdict.duration(seconds: 1_209_600) == "14 d")
        #expect(GuardVerdict.count(999) == "999" && GuardVerdict.count(1_000_000) == "1,000,000")
        #expect(GuardVerdict.fixed(-0.0004, 3) == "0.000" && GuardVerdict.fixed(0.2751, 1) == "0.3")
    }
}

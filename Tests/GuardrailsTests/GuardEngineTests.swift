import Testing
@testable import Guardrails

/// SPEC §11.3's decisions as a table: (plan, stage, arms, time) → (status, decision).
@Suite struct GuardEngineTests {
    static let hour: Int64 = 3_600_000
    static let t0: Int64 = 1_700_000_000_000

    static func plan(goal: GuardPlan.Goal = .guard, direction: GuardPlan.Metric.Direction = .higherIsBetter,
                     margin: Double = 0, onSRM: GuardPlan.SRMAction = .notify, status: GuardStatus = .collecting,
                     stageStartedAt: Int64? = t0, startedAt: Int64? = t0, settleSeconds: Int = 0) -> GuardPlan {
        try! GuardPlan(
            metric: .init(name: "m", outcome: "o", direction: direction), stages: [1, 5, 10],
            minStageSeconds: 3_600, minClientsPerArm: 1_000, regressionMargin: margin, goal: goal,
            maxSeconds: 86_400, noDataSeconds: 7_200, onSRM: onSRM, settleSeconds: settleSeconds,
            runtime: .init(status: status, startedAt: startedAt, stageStartedAt: stageStartedAt))
    }

    /// Rate arms: `t`/`nT` treatment, `c`/`nC` control.
    static func arms(_ t: Double, _ nT: Int, _ c: Double, _ nC: Int) -> GuardAccumulator {
        GuardAccumulator(treatment: ArmStats(clients: nT, sum: t, sumOfSquares: t),
                         control: ArmStats(clients: nC, sum: c, sumOfSquares: c))
    }

    static let even = arms(500, 10_000, 500, 10_000)       // no difference
    static let worse = arms(400, 10_000, 500, 10_000)      // 4 % vs 5 %: proven worse
    static let better = arms(600, 10_000, 500, 10_000)     // 6 % vs 5 %: proven better
    static let few = arms(40, 800, 50, 1_000)              // treatment below min_clients_per_arm
    static let lopsided = arms(450, 9_000, 500, 10_000)    // 47.4 % of clients in treatment

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let plan: GuardPlan
        let stage: Int
        let arms: GuardAccumulator
        let after: Int64
        let status: GuardStatus
        let decision: GuardDecision?
        var testDescription: String { name }
    }

    static func d(_ rule: GuardDecision.Rule, _ stage: Int, next: Int? = nil, pauses: Bool = false) -> GuardDecision {
        GuardDecision(rule: rule, stage: stage, nextStage: next, pausesRelease: pauses)
    }

    static let cases: [Case] = [
        Case(name: "collecting: too few clients, early", plan: plan(), stage: 1, arms: few, after: hour, status: .collecting, decision: nil),
        Case(name: "no_data after no_data_seconds in the stage", plan: plan(), stage: 5, arms: few, after: 2 * hour, status: .noData, decision: d(.noData, 5)),
        Case(name: "no_data recorded once", plan: plan(status: .noData), stage: 5, arms: few, after: 3 * hour, status: .noData, decision: nil),
        Case(name: "no_data never promotes, even at the last stage", plan: plan(), stage: 10, arms: few, after: 20 * hour, status: .noData, decision: d(.noData, 10)),
        Case(name: "regression pauses at once, before soak", plan: plan(), stage: 1, arms: worse, after: 0, status: .pausedRegression, decision: d(.pause, 1, pauses: true)),
        Case(name: "lower_is_better: a higher treatment is the regression", plan: plan(direction: .lowerIsBetter), stage: 1, arms: better, after: 0, status: .pausedRegression, decision: d(.pause, 1, pauses: true)),
        Case(name: "lower_is_better: a lower treatment is fine", plan: plan(direction: .lowerIsBetter), stage: 1, arms: worse, after: 0, status: .healthy, decision: nil),
        Case(name: "regression_margin tolerates a small proven drop", plan: plan(margin: 0.005), stage: 5, arms: worse, after: hour, status: .healthy, decision: d(.advance, 5, next: 10)),
        Case(name: "healthy, not soaked: hold", plan: plan(), stage: 1, arms: even, after: hour - 1, status: .healthy, decision: nil),
        Case(name: "soaked: advance to the next stage", plan: plan(), stage: 1, arms: even, after: hour, status: .healthy, decision: d(.advance, 1, next: 5)),
        Case(name: "guard goal: last stage soaked → promote to 100", plan: plan(), stage: 10, arms: even, after: hour, status: .promoted, decision: d(.promote, 10, next: 100)),
        Case(name: "guard goal ignores max_seconds", plan: plan(), stage: 5, arms: even, after: 30 * 24 * hour, status: .healthy, decision: d(.advance, 5, next: 10)),
        Case(name: "prove: last stage, not proven better → hold", plan: plan(goal: .prove), stage: 10, arms: even, after: hour, status: .healthy, decision: nil),
        Case(name: "prove: last stage, proven better → promote", plan: plan(goal: .prove), stage: 10, arms: better, after: hour, status: .promoted, decision: d(.promote, 10, next: 100)),
        Case(name: "prove: proven better before the last stage only advances", plan: plan(goal: .prove), stage: 5, arms: better, after: hour, status: .healthy, decision: d(.advance, 5, next: 10)),
        Case(name: "prove: max_seconds → inconclusive, hold", plan: plan(goal: .prove), stage: 10, arms: even, after: 24 * hour, status: .inconclusive, decision: d(.inconclusive, 10)),
        Case(name: "prove: max_seconds without data → inconclusive", plan: plan(goal: .prove), stage: 5, arms: few, after: 24 * hour, status: .inconclusive, decision: d(.inconclusive, 5)),
        Case(name: "prove: promotion wins over max_seconds", plan: plan(goal: .prove), stage: 10, arms: better, after: 24 * hour, status: .promoted, decision: d(.promote, 10, next: 100)),
        Case(name: "prove: regression wins over max_seconds", plan: plan(goal: .prove), stage: 10, arms: worse, after: 24 * hour, status: .pausedRegression, decision: d(.pause, 10, pauses: true)),
        Case(name: "SRM notify: flagged, stage held", plan: plan(), stage: 1, arms: lopsided, after: hour, status: .srm, decision: d(.srm, 1)),
        Case(name: "SRM notify: recorded once", plan: plan(status: .srm), stage: 1, arms: lopsided, after: 2 * hour, status: .srm, decision: nil),
        Case(name: "SRM notify: cleared → healthy, advances", plan: plan(status: .srm), stage: 1, arms: even, after: 2 * hour, status: .healthy, decision: d(.advance, 1, next: 5)),
        Case(name: "SRM pause: release paused", plan: plan(onSRM: .pause), stage: 1, arms: lopsided, after: hour, status: .srm, decision: d(.srm, 1, pauses: true)),
        Case(name: "SRM pause: finished afterwards", plan: plan(onSRM: .pause, status: .srm), stage: 1, arms: even, after: hour, status: .srm, decision: nil),
        Case(name: "regression wins over SRM", plan: plan(), stage: 1, arms: arms(300, 9_000, 500, 10_000), after: 0, status: .pausedRegression, decision: d(.pause, 1, pauses: true)),
        Case(name: "paused guard decides nothing more", plan: plan(status: .pausedRegression), stage: 1, arms: even, after: hour, status: .pausedRegression, decision: nil),
        Case(name: "promoted guard decides nothing more", plan: plan(status: .promoted), stage: 10, arms: worse, after: hour, status: .promoted, decision: nil),
        Case(name: "stopped guard decides nothing more", plan: plan(status: .stopped), stage: 7, arms: worse, after: hour, status: .stopped, decision: nil),
        Case(name: "rollout set by hand off the stages → manual_override", plan: plan(), stage: 7, arms: even, after: hour, status: .stopped, decision: d(.manualOverride, 7)),
        Case(name: "SRM in a cohort not settled yet: no srm, advances", plan: plan(settleSeconds: 7_200), stage: 1, arms: lopsided, after: hour, status: .healthy, decision: d(.advance, 1, next: 5)),
        Case(name: "SRM caught once the cohort settled", plan: plan(settleSeconds: 7_200), stage: 1, arms: lopsided, after: 2 * hour, status: .srm, decision: d(.srm, 1)),
        Case(name: "regression reads unsettled cohorts", plan: plan(settleSeconds: 7_200), stage: 1, arms: worse, after: 0, status: .pausedRegression, decision: d(.pause, 1, pauses: true)),
        Case(name: "missing stage time counts as now: no soak", plan: plan(stageStartedAt: nil), stage: 1, arms: even, after: 100 * hour, status: .healthy, decision: nil),
    ]

    @Test(arguments: cases)
    func decisions_SPEC11_3(_ c: Case) {
        let e = GuardEngine.evaluate(c.plan, stage: c.stage, arms: c.arms, now: Self.t0 + c.after)
        #expect(e.status == c.status)
        #expect(e.decision == c.decision)
    }

    @Test func figures_reportMeasuredDeltaWhateverTheDirection_SPEC11_3() {
        let f = GuardEngine.evaluate(Self.plan(direction: .lowerIsBetter), stage: 1, arms: Self.better, now: Self.t0).figures
        #expect(close(f.delta, 0.01) && f.bound! > 0 && f.regression && !f.provenBetter)
        #expect(f.treatment.clients == 10_000 && f.alpha == 0.05 && f.tuningClients == 20_000)
    }

    @Test func figures_nullBeforeBothArmsHaveAClient_SPEC11_5() {
        let f = GuardEngine.evaluate(Self.plan(), stage: 1, arms: Self.arms(3, 10, 0, 0), now: Self.t0).figures
        #expect(f.delta == nil && f.bound == nil && !f.regression && !f.provenBetter)
        #expect(f.srm.pValue != nil && f.control.mean == nil)
    }

    @Test func figures_hugeMeanValues_giveNoFiguresRatherThanNaN() throws {
        let plan = try GuardPlan(metric: .init(name: "m", kind: .mean), minClientsPerArm: 1)
        var arms = GuardAccumulator(), t = ClientTally(arm: .treatment), c = ClientTally(arm: .control)
        arms.record(events: 1, total: 1e300, into: &t)
        arms.record(events: 1, total: 1, into: &c)
        let e = GuardEngine.evaluate(plan, stage: 1, arms: arms, now: 0)
        #expect(e.figures.delta == nil && e.figures.bound == nil && e.decision == nil && e.status == .healthy)
    }

    /// SPEC §11.2 v5: after an advance the new control cohort counts at once and the new
    /// treatment cohort lags; the SRM test waits for it, and then catches a lasting mismatch.
    @Test func laggingTreatmentCohort_noSRMUntilItSettles_thenCaught_SPEC11_2() {
        let p = Self.plan(stageStartedAt: Self.t0 + Self.hour, settleSeconds: 3_600)
        var arms = Self.even
        arms.add(clients: 3_000, sum: 150, sumOfSquares: 150, to: .control, cohort: 1)
        let early = GuardEngine.evaluate(p, stage: 5, arms: arms, now: Self.t0 + Self.hour + Self.hour / 2)
        #expect(early.status == .healthy && early.decision == nil)
        #expect(early.figures.srm.cohorts == [1] && early.figures.srm.treatment == 10_000 && early.figures.srm.control == 10_000)
        #expect(early.figures.control.clients == 13_000, "the other decisions keep every counted client")
        let settled = GuardEngine.evaluate(p, stage: 5, arms: arms, now: Self.t0 + 2 * Self.hour)
        #expect(settled.status == .srm && settled.decision == Self.d(.srm, 5))
        #expect(settled.figures.srm.cohorts == [1, 5] && settled.figures.srm.control == 13_000 && settled.figures.srm.pValue! < 0.001)
    }

    /// The SRM p-value is sequential (docs/decisions/srm-sequential.md): an evaluation keeps the
    /// running minimum of the previous look's p and its own 1/BF. A past dip below 0.001 flags
    /// while the split is still ≥ 1 point off ½ (the same counts looked at afresh would not),
    /// and no longer once the split is within the floor. (previous p, treatment, control) →
    /// (p, status).
    @Test(arguments: [
        (nil, 1_100, 1_000, 0.7276410033548462, GuardStatus.healthy),
        (0.0005, 1_100, 1_000, 0.0005, .srm),
        (0.0005, 1_030, 1_000, 0.0005, .healthy),
        (0.3, 10_000, 10_000, 0.3, .healthy),
        (nil, 10_000, 10_000, 1, .healthy),
        (0.3, 9_000, 10_000, 5.51603782124241e-08, .srm),
    ] as [(Double?, Int, Int, Double, GuardStatus)])
    func srmPValue_isTheRunningMinimumOverLooks(_ c: (previous: Double?, treatment: Int, control: Int, p: Double, status: GuardStatus)) {
        let arms = Self.arms(50, c.treatment, 50, c.control)
        let e = GuardEngine.evaluate(Self.plan(), stage: 1, arms: arms, now: Self.t0, srmPValue: c.previous)
        #expect(close(e.figures.srm.pValue, c.p, rel: 1e-7), "p \(e.figures.srm.pValue ?? .nan)")
        #expect(e.status == c.status)
    }

    /// A cohort is the stage at which a bucket entered its arm (SPEC §11.2 v5).
    @Test(arguments: [(0, Arm.treatment, 0), (3, .treatment, 1), (9, .treatment, 2), (99, .control, 0), (95, .control, 1), (94, .control, 2), (90, .control, 2)])
    func cohort_isTheStageTheBucketEnteredItsArm_SPEC11_2(_ c: (bucket: Int, arm: Arm, cohort: Int)) {
        #expect(Self.plan().cohort(bucket: c.bucket, arm: c.arm) == c.cohort)
    }

    /// Stages [1, 5, 10] soaking 1 h each; the guard is at 10 since t0 + 5 h. Stage 5 began at
    /// the latest at t0 + 4 h (it soaked before the advance), and that time is what counts.
    @Test(arguments: [
        (0, Int64(6) * hour, 3), (7_200, 6 * hour, 2), (7_200, 5 * hour + hour / 2, 1), (7_200, 7 * hour, 3), (7_200, hour, 0), (25_200, 6 * hour, 0),
    ])
    func settledCohorts_areThoseWhoseStageBeganSettleSecondsAgo_SPEC11_2(_ c: (settle: Int, after: Int64, settled: Int)) {
        let p = Self.plan(stageStartedAt: Self.t0 + 5 * Self.hour, settleSeconds: c.settle)
        #expect(p.settledCohorts(stage: 10, now: Self.t0 + c.after) == c.settled)
    }

    /// When each cohort's stage began, as the SRM count reads it: the guard's start, the latest
    /// possible start of a stage in between (stage 5 soaked 1 h before the advance at t0 + 5 h),
    /// the current stage's start; a time not set yet is "now".
    @Test(arguments: [(0, Int64(0)), (1, 4 * hour), (2, 5 * hour)])
    func cohortBegan_guardStart_latestPossible_currentStart(_ c: (cohort: Int, began: Int64)) {
        #expect(Self.plan(stageStartedAt: Self.t0 + 5 * Self.hour).cohortBegan(c.cohort, stage: 10, now: 0) == Self.t0 + c.began)
        #expect(Self.plan(stageStartedAt: nil, startedAt: nil).cohortBegan(c.cohort, stage: 10, now: 42) == 42 - (c.cohort == 1 ? Self.hour : 0))
    }

    /// The SRM count (docs/decisions/srm-counting.md): the new treatment cohort joined the SRM
    /// test at its first batch after the advance, still on the baseline; only the control cohort
    /// counts for the other decisions. Settled, the SRM test sees 1:1 and raises nothing; v4's
    /// rule (`settle_seconds` 0) tests the counted clients and flags the same arms.
    @Test func laggingTreatmentCohortInTheSRMTest_settled_noSRM_v4RuleFlagsIt() {
        var arms = Self.even
        for _ in 0..<3_000 {
            var t = ClientTally(arm: .treatment, cohort: 1), c = ClientTally(arm: .control, cohort: 1)
            arms.enterSRM(&t)
            arms.enterSRM(&c)
            arms.record(events: 2, total: 0, into: &c)
        }
        #expect(arms.treatment.clients == 10_000 && arms.control.clients == 13_000)
        let settled = GuardEngine.evaluate(Self.plan(stageStartedAt: Self.t0, settleSeconds: 60), stage: 5, arms: arms, now: Self.t0 + Self.hour / 2)
        #expect(settled.status == .healthy && settled.decision == nil)
        #expect(settled.figures.srm.cohorts == [1, 5] && settled.figures.srm.treatment == 13_000 && settled.figures.srm.control == 13_000)
        let v4 = GuardEngine.evaluate(Self.plan(stageStartedAt: Self.t0), stage: 5, arms: arms, now: Self.t0 + Self.hour / 2)
        #expect(v4.status == .srm && v4.figures.srm.treatment == 10_000 && v4.figures.srm.control == 13_000)
    }

    /// Only a decision changes the stored runtime fields; an advance restarts the stage clock.
    @Test func runtime_changesOnlyWithADecision_SPEC11_4() {
        let p = Self.plan()
        let held = GuardEngine.evaluate(p, stage: 1, arms: Self.even, now: Self.t0 + 10)
        #expect(p.runtime.recording(held, at: Self.t0 + 10) == p.runtime)
        let now = Self.t0 + Self.hour
        let advanced = GuardEngine.evaluate(p, stage: 1, arms: Self.even, now: now)
        #expect(p.runtime.recording(advanced, at: now) == .init(status: .healthy, startedAt: Self.t0, stageStartedAt: now))
        let paused = GuardEngine.evaluate(p, stage: 1, arms: Self.worse, now: now)
        #expect(p.runtime.recording(paused, at: now) == .init(status: .pausedRegression, startedAt: Self.t0, stageStartedAt: Self.t0))
    }
}

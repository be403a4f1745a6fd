/// The SRM test's figures (SPEC §11.2 v5, §11.3): the clients in the SRM test
/// (`ClientTally.inSRM`) of the settled cohorts only; with `settle_seconds` 0, v4's rule: every
/// counted client.
public struct SRMFigures: Hashable, Sendable {
    public let treatment: Int
    public let control: Int
    /// The sequential p-value (`SampleRatio.pValue`): the running minimum over this guard's
    /// looks, so the caller hands it to the next evaluation; nil before anybody was counted.
    public let pValue: Double?
    /// The stages (rollout percents) whose cohorts were used.
    public let cohorts: [Int]
    public let mismatch: Bool

    init(plan: GuardPlan, arms: GuardAccumulator, settledCohorts: Int, previousPValue: Double?) {
        let v4 = plan.settleSeconds == 0
        treatment = v4 ? arms.treatment.clients : arms.clients(.treatment, cohorts: settledCohorts)
        control = v4 ? arms.control.clients : arms.clients(.control, cohorts: settledCohorts)
        pValue = SampleRatio.pValue(treatment: treatment, control: control, previous: previousPValue)
        cohorts = Array(plan.stages.prefix(settledCohorts))
        mismatch = SampleRatio.isMismatch(pValue: pValue, treatment: treatment, control: control)
    }
}

/// The figures of one evaluation (SPEC §11.3, shown in §11.5): per-arm sums, Δ̂ = m_T − m_C,
/// the one-sided bound h₁, SRM, and what they say before any readiness rule applies.
public struct GuardFigures: Hashable, Sendable {
    public let treatment: ArmStats
    public let control: ArmStats
    /// m_T − m_C as measured (not flipped for `lower_is_better`); nil until both arms have a client.
    public let delta: Double?
    /// h₁; nil until both arms have a client.
    public let bound: Double?
    public let alpha: Double
    public let tuningClients: Int
    public let srm: SRMFigures
    /// Proven worse by more than `regression_margin`: Δ̂ + h₁ < −margin (Δ̂ in the better direction).
    public let regression: Bool
    /// Proven better: Δ̂ − h₁ > 0 (Δ̂ in the better direction).
    public let provenBetter: Bool

    /// - Parameters:
    ///   - settledCohorts: how many cohorts the SRM test uses (`GuardPlan.settledCohorts`); the
    ///     other decisions use every counted client.
    ///   - srmPValue: the SRM p-value of this guard's last look (`srm.pValue`), nil for none.
    public init(plan: GuardPlan, arms: GuardAccumulator, settledCohorts: Int, srmPValue: Double? = nil) {
        treatment = arms.treatment
        control = arms.control
        alpha = plan.alpha
        tuningClients = plan.tuningClients
        srm = SRMFigures(plan: plan, arms: arms, settledCohorts: settledCohorts, previousPValue: srmPValue)
        var d: Double?, h: Double?
        if let mT = treatment.mean, let mC = control.mean, let vT = treatment.variance, let vC = control.variance {
            d = mT - mC
            h = SequentialBound.halfWidth(
                variance: vT / Double(treatment.clients) + vC / Double(control.clients),
                clients: treatment.clients + control.clients, alpha: plan.alpha, tuningClients: plan.tuningClients)
        }
        guard let d, let h, d.isFinite, h.isFinite else {
            delta = nil
            bound = nil
            regression = false
            provenBetter = false
            return
        }
        let better = plan.metric.direction == .higherIsBetter ? d : -d
        delta = d
        bound = h
        regression = better + h < -plan.regressionMargin
        provenBetter = better - h > 0
    }
}

/// Something the evaluator applies to the release and appends to `data/guard-decisions.jsonl`
/// (SPEC §11.4/§11.5 `rule`, `stage`, `next_stage`).
public struct GuardDecision: Hashable, Sendable {
    public enum Rule: String, Hashable, Sendable, CaseIterable {
        case advance, pause, promote, srm
        case noData = "no_data"
        case inconclusive
        case manualOverride = "manual_override"
    }

    public let rule: Rule
    /// The stage (rollout percent) the guard was at.
    public let stage: Int
    /// The rollout percent to set: the next stage (advance) or 100 (promote); nil otherwise.
    public let nextStage: Int?
    /// Whether the release is to be paused (regression, or SRM with `on_srm: pause`).
    public let pausesRelease: Bool

    public init(rule: Rule, stage: Int, nextStage: Int? = nil, pausesRelease: Bool = false) {
        self.rule = rule
        self.stage = stage
        self.nextStage = nextStage
        self.pausesRelease = pausesRelease
    }
}

/// The outcome of one evaluation: the guard's status now, the decision to apply (nil: nothing
/// to apply or record — the runtime fields in the catalog stay as they are), and the figures.
public struct GuardEvaluation: Hashable, Sendable {
    public let status: GuardStatus
    public let decision: GuardDecision?
    public let figures: GuardFigures
}

/// SPEC §11.3's decisions as one pure function of the plan (with its runtime fields), the
/// stage the release is at, the arms' sums and the time. Nothing here reads a clock.
public enum GuardEngine {
    /// - Parameters:
    ///   - stage: the release's `rollout_percent` now. A value that is not one of the plan's
    ///     stages was set by hand, and a manual change always wins (§11.4): `manual_override`.
    ///   - now: milliseconds since the Unix epoch. A runtime time the evaluator has not set yet
    ///     counts as "just now", so nothing soaks or expires on a missing time.
    ///   - srmPValue: the previous evaluation's `figures.srm.pValue` (nil before the first): the
    ///     SRM test is sequential, its p-value the running minimum over the looks.
    public static func evaluate(_ plan: GuardPlan, stage: Int, arms: GuardAccumulator, now: Int64, srmPValue: Double? = nil) -> GuardEvaluation {
        let figures = GuardFigures(plan: plan, arms: arms, settledCohorts: plan.settledCohorts(stage: stage, now: now), srmPValue: srmPValue)
        let previous = plan.runtime.status
        func outcome(_ status: GuardStatus, _ decision: GuardDecision? = nil) -> GuardEvaluation {
            GuardEvaluation(status: status, decision: decision, figures: figures)
        }
        if plan.isFinished { return outcome(previous) }
        guard plan.stages.contains(stage) else {
            return outcome(.stopped, GuardDecision(rule: .manualOverride, stage: stage))
        }
        let inStage = now - (plan.runtime.stageStartedAt ?? now)
        let soaked = inStage >= Int64(plan.minStageSeconds) * 1000
        let expired = plan.goal == .prove && now - (plan.runtime.startedAt ?? now) >= Int64(plan.maxSeconds) * 1000
        let ready = arms.treatment.clients >= plan.minClientsPerArm && arms.control.clients >= plan.minClientsPerArm

        guard ready else {
            if expired { return outcome(.inconclusive, GuardDecision(rule: .inconclusive, stage: stage)) }
            if inStage >= Int64(plan.noDataSeconds) * 1000 {
                // Recorded once when the guard enters no_data, not at every evaluation.
                return outcome(.noData, previous == .noData ? nil : GuardDecision(rule: .noData, stage: stage))
            }
            return outcome(.collecting)
        }
        if figures.regression {
            return outcome(.pausedRegression, GuardDecision(rule: .pause, stage: stage, pausesRelease: true))
        }
        if figures.srm.mismatch {
            // Recorded once; with `on_srm: pause` the guard is finished after it (isFinished).
            return outcome(.srm, previous == .srm ? nil : GuardDecision(rule: .srm, stage: stage, pausesRelease: plan.onSRM == .pause))
        }
        let next = plan.stage(after: stage)
        if soaked, next == nil, plan.goal == .guard || figures.provenBetter {
            return outcome(.promoted, GuardDecision(rule: .promote, stage: stage, nextStage: 100))
        }
        if expired { return outcome(.inconclusive, GuardDecision(rule: .inconclusive, stage: stage)) }
        if soaked, let next {
            return outcome(.healthy, GuardDecision(rule: .advance, stage: stage, nextStage: next))
        }
        return outcome(.healthy)
    }
}

extension GuardPlan.Runtime {
    /// The runtime fields after `evaluation` was applied at `now`: unchanged without a decision
    /// (so the catalog does not churn), a new stage clock on advance.
    public func recording(_ evaluation: GuardEvaluation, at now: Int64) -> GuardPlan.Runtime {
        guard let decision = evaluation.decision else { return self }
        var next = self
        next.status = evaluation.status
        if decision.rule == .advance { next.stageStartedAt = now }
        return next
    }
}

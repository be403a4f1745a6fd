/// The `guard` of a challenger release (SPEC §11.1): what to measure, how to ramp, when to
/// act — plus the runtime fields the evaluator keeps beside it in `catalog.json` (§11.4).
/// A value that is valid by construction: every initialiser validates and names the field.
public struct GuardPlan: Hashable, Sendable {
    public struct Metric: Hashable, Sendable {
        public enum Kind: String, Sendable, CaseIterable {
            /// A client's value is the fraction of its `name` events whose outcome is `outcome`.
            case rate
            /// A client's value is the mean `value` of its `name` events.
            case mean
        }

        public enum Direction: String, Sendable, CaseIterable {
            case higherIsBetter = "higher_is_better"
            case lowerIsBetter = "lower_is_better"
        }

        public let name: String
        /// The outcome a `rate` counts; nil for `mean` (which has none).
        public let outcome: String?
        public let kind: Kind
        public let direction: Direction

        public init(name: String, outcome: String? = nil, kind: Kind = .rate, direction: Direction = .higherIsBetter) throws(GuardPlanError) {
            // Same limits as the events they match (SPEC §4.2), so no metric can name an
            // event that cannot exist.
            guard (1...64).contains(name.unicodeScalars.count) else { throw GuardPlanError("guard.metric.name", "must be a string of 1-64 characters") }
            switch (kind, outcome) {
            case (.rate, nil): throw GuardPlanError("guard.metric.outcome", "required for kind rate")
            case (.rate, let o?) where !(1...64).contains(o.unicodeScalars.count):
                throw GuardPlanError("guard.metric.outcome", "must be a string of 1-64 characters")
            case (.mean, _?): throw GuardPlanError("guard.metric.outcome", "not allowed for kind mean (its value is the events' value)")
            default: break
            }
            self.name = name
            self.outcome = outcome
            self.kind = kind
            self.direction = direction
        }
    }

    public enum Goal: String, Sendable, CaseIterable {
        /// Advance unless proven worse; promote after the last stage's soak (bias to action).
        case `guard`
        /// Promote only when proven better at the last stage; `inconclusive` at `max_seconds`.
        case prove
    }

    public enum SRMAction: String, Sendable, CaseIterable {
        case notify, pause
    }

    /// What the evaluator keeps on the guard (§11.4), changed only with a decision.
    /// Times are milliseconds since the Unix epoch; their text form belongs to the caller.
    public struct Runtime: Hashable, Sendable {
        public var status: GuardStatus
        /// When the guard began (its first stage); `max_seconds` counts from here.
        public var startedAt: Int64?
        public var stageStartedAt: Int64?

        public init(status: GuardStatus = .collecting, startedAt: Int64? = nil, stageStartedAt: Int64? = nil) {
            self.status = status
            self.startedAt = startedAt
            self.stageStartedAt = stageStartedAt
        }
    }

    public static let defaultStages = [1, 5, 10, 25, 50]
    public static let defaultMinStageSeconds = 86_400
    public static let defaultMinClientsPerArm = 1_000
    public static let defaultAlpha = 0.05
    public static let defaultTuningClients = 20_000
    public static let defaultMaxSeconds = 1_209_600
    public static let defaultNoDataSeconds = 172_800
    /// One 4-hour poll interval: by then a new treatment cohort has mostly checked and downloaded.
    public static let defaultSettleSeconds = 14_400
    /// Upper limits that keep the arithmetic (milliseconds in Int64, counts in UInt32) far from
    /// overflow; nobody soaks a stage for more than ten years.
    public static let maxSeconds = 315_360_000
    public static let maxClients = 1_000_000_000

    public let metric: Metric
    public let stages: [Int]
    public let minStageSeconds: Int
    public let minClientsPerArm: Int
    public let alpha: Double
    public let tuningClients: Int
    public let regressionMargin: Double
    public let goal: Goal
    public let maxSeconds: Int
    public let noDataSeconds: Int
    public let onSRM: SRMAction
    /// How long a stage's cohort waits before the SRM test uses it (§11.2 v5); 0 = at once.
    public let settleSeconds: Int
    public var runtime: Runtime

    public init(
        metric: Metric, stages: [Int] = GuardPlan.defaultStages,
        minStageSeconds: Int = GuardPlan.defaultMinStageSeconds, minClientsPerArm: Int = GuardPlan.defaultMinClientsPerArm,
        alpha: Double = GuardPlan.defaultAlpha, tuningClients: Int = GuardPlan.defaultTuningClients,
        regressionMargin: Double = 0, goal: Goal = .guard, maxSeconds: Int = GuardPlan.defaultMaxSeconds,
        noDataSeconds: Int = GuardPlan.defaultNoDataSeconds, onSRM: SRMAction = .notify,
        settleSeconds: Int = GuardPlan.defaultSettleSeconds, runtime: Runtime = Runtime()
    ) throws(GuardPlanError) {
        try Self.validate(stages: stages)
        try Self.validate(seconds: minStageSeconds, "guard.min_stage_seconds")
        try Self.validate(clients: minClientsPerArm, "guard.min_clients_per_arm")
        guard alpha > 0, alpha < 0.5 else { throw GuardPlanError("guard.alpha", "must be a number in (0, 0.5)") }
        try Self.validate(clients: tuningClients, "guard.tuning_clients")
        guard regressionMargin.isFinite, regressionMargin >= 0 else {
            throw GuardPlanError("guard.regression_margin", "must be a finite number ≥ 0 (in the metric's units)")
        }
        try Self.validate(seconds: maxSeconds, "guard.max_seconds")
        try Self.validate(seconds: noDataSeconds, "guard.no_data_seconds")
        guard (0...Self.maxSeconds).contains(settleSeconds) else {
            throw GuardPlanError("guard.settle_seconds", "must be an integer 0-\(Self.maxSeconds) (seconds)")
        }
        self.metric = metric
        self.stages = stages
        self.minStageSeconds = minStageSeconds
        self.minClientsPerArm = minClientsPerArm
        self.alpha = alpha
        self.tuningClients = tuningClients
        self.regressionMargin = regressionMargin
        self.goal = goal
        self.maxSeconds = maxSeconds
        self.noDataSeconds = noDataSeconds
        self.onSRM = onSRM
        self.settleSeconds = settleSeconds
        self.runtime = runtime
    }

    /// The stage after `percent`, or nil at the last one.
    public func stage(after percent: Int) -> Int? {
        stages.first { $0 > percent }
    }

    /// Whether the guard has nothing left to decide: paused, promoted, stopped, inconclusive, or
    /// an SRM that paused the release. An SRM that only notified keeps the guard watching.
    public var isFinished: Bool {
        switch runtime.status {
        case .collecting, .healthy, .noData: return false
        case .srm: return onSRM == .pause
        case .pausedRegression, .promoted, .inconclusive, .stopped: return true
        }
    }

    /// A client's cohort (§11.2 v5): the index of the stage at which its bucket entered `arm`
    /// (treatment: the first stage p with bucket < p; control: the first with bucket ≥ 100 − p).
    public func cohort(bucket: Int, arm: Arm) -> Int {
        let entered = stages.firstIndex { arm == .treatment ? bucket < $0 : bucket >= 100 - $0 }
        // A client is only put in an arm at a stage that covers it, so nil cannot happen here.
        return entered ?? stages.count - 1
    }

    /// How many cohorts, from the first stage on, the SRM test uses at `stage` and `now` (§11.2
    /// v5): those of the stages up to `stage` that began at least `settle_seconds` ago. Only the
    /// first and the current stage's start are stored; a stage in between began at the latest
    /// `min_stage_seconds` before the next one (it had to soak), and that latest time is used,
    /// so a cohort may wait longer than `settle_seconds` but never less. A time not set yet
    /// counts as "just now", as in the engine.
    public func settledCohorts(stage: Int, now: Int64) -> Int {
        guard let current = stages.lastIndex(where: { $0 <= stage }) else { return 0 }
        guard settleSeconds > 0 else { return current + 1 }
        let settle = Int64(settleSeconds) * 1000
        return (0...current).prefix { now - cohortBegan($0, stage: stage, now: now) >= settle }.count
    }

    /// When the stage of cohort `index` (at most the stage `stage`'s index) began, as
    /// `settledCohorts` reckons it: the guard's start for the first, the current stage's start
    /// for the current one, and the latest time it can have begun for one in between.
    public func cohortBegan(_ index: Int, stage: Int, now: Int64) -> Int64 {
        if index == 0 { return runtime.startedAt ?? now }
        let current = stages.lastIndex { $0 <= stage } ?? 0
        return (runtime.stageStartedAt ?? now) - Int64(max(0, current - index)) * Int64(minStageSeconds) * 1000
    }

    /// Whether the guard itself paused its release: a regression, or an SRM with `on_srm: pause`.
    public var pausedItsRelease: Bool {
        runtime.status == .pausedRegression || (runtime.status == .srm && onSRM == .pause)
    }

    // Stages are percentages that only grow, from 1 (a 0 % stage would be an arm of nobody)
    // to 50 (control is the top p % of buckets: above 50 the arms would overlap, §11.2).
    static func validate(stages: [Int]) throws(GuardPlanError) {
        guard !stages.isEmpty else { throw GuardPlanError("guard.stages", "must list at least one stage") }
        for (i, p) in stages.enumerated() {
            guard (1...50).contains(p) else { throw GuardPlanError("guard.stages[\(i)]", "must be an integer percentage 1-50") }
            if i > 0, p <= stages[i - 1] {
                throw GuardPlanError("guard.stages[\(i)]", "must be greater than the stage before it (\(stages[i - 1]))")
            }
        }
    }

    static func validate(seconds: Int, _ field: String) throws(GuardPlanError) {
        guard (1...maxSeconds).contains(seconds) else { throw GuardPlanError(field, "must be an integer 1-\(maxSeconds) (seconds)") }
    }

    static func validate(clients: Int, _ field: String) throws(GuardPlanError) {
        guard (1...maxClients).contains(clients) else { throw GuardPlanError(field, "must be an integer 1-\(maxClients)") }
    }
}

/// `guard.status` (SPEC §11.4).
public enum GuardStatus: String, Hashable, Sendable, CaseIterable {
    case collecting, healthy
    case pausedRegression = "paused_regression"
    case srm
    case noData = "no_data"
    case promoted, inconclusive, stopped
}

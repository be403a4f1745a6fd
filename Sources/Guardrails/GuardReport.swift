/// What `modelctl experiment report` draws (SPEC §11.5): a guarded release's recorded history.
/// The evaluator records decisions only, not every evaluation (§11.4), so the points are the
/// recorded decisions plus the last evaluation's figures; times stay epoch milliseconds, with
/// the recorded text alongside (Guardrails does no date conversion).
public struct GuardReport: Sendable {
    public struct Arm: Sendable {
        public var clients: Int
        public var mean: Double?
        public init(clients: Int, mean: Double?) { self.clients = clients; self.mean = mean }
    }

    public struct Point: Sendable {
        public var at: Int64
        public var time: String
        /// The decision's rule; nil for the last evaluation.
        public var rule: String?
        public var stage: Int
        public var nextStage: Int?
        public var treatment: Arm
        public var control: Arm
        public var delta: Double?
        public var bound: Double?

        public init(at: Int64, time: String, rule: String?, stage: Int, nextStage: Int?,
                    treatment: Arm, control: Arm, delta: Double?, bound: Double?) {
            self.at = at; self.time = time; self.rule = rule; self.stage = stage; self.nextStage = nextStage
            self.treatment = treatment; self.control = control; self.delta = delta; self.bound = bound
        }
    }

    public var release: String
    public var status: String
    public var alpha: Double?
    public var tuningClients: Int?
    /// Oldest first.
    public var points: [Point]
    /// SPEC §18: the newest event time the evaluator read, per storing instance.
    public var eventsRead: [(instance: String, at: String)] = []

    public init(release: String, status: String, alpha: Double?, tuningClients: Int?, points: [Point]) {
        self.release = release; self.status = status; self.alpha = alpha; self.tuningClients = tuningClients
        self.points = points.sorted { $0.at < $1.at }
    }
}

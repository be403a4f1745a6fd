import Guardrails
import Randomness

/// What `modelctl experiment simulate` assumes about the fleet (SPEC §11.6): how many clients,
/// how often they check and how long their downloads take, how many use the app each day, and
/// the true outcome of each model. Valid by construction; a bad value names its flag.
public struct FleetModel: Hashable, Sendable {
    /// The true per-event outcome of each model (SPEC §11.6 "the truth per arm").
    public enum Truth: Hashable, Sendable {
        /// Each event is the outcome with probability `control` on the baseline and
        /// `control + effect` on the challenger.
        case rate(control: Double, effect: Double)
        /// Each event's value is normal with mean `control` (+ `effect` on the challenger) and
        /// standard deviation `sd`.
        case mean(control: Double, sd: Double, effect: Double)
    }

    /// Limits that keep a client index in 31 bits and virtual seconds in 32 (`EventCalendar`).
    public static let maxClients = 100_000_000
    public static let maxDays = 365
    /// Spread of the download delay (log scale): median 10 min gives p10 2.8 min, p90 36 min.
    public static let downloadSigma = 1.0

    public let clients: Int
    public let days: Int
    public let pollHours: Double
    public let downloadMinutes: Double
    public let dailyActive: Double
    public let eventsPerDay: Double
    public let truth: Truth
    /// A real sample ratio mismatch to inject (tests only, no flag): the share of treatment
    /// clients whose batches never reach the server, as when the challenger's build loses its
    /// reports. Drawn per client, apart from its bucket.
    var lostTreatmentReporters = 0.0

    public init(clients: Int = 100_000, days: Int = 14, pollHours: Double = 4, downloadMinutes: Double = 10,
                dailyActive: Double = 0.6, eventsPerDay: Double = 3, truth: Truth) throws(SimulationInputError) {
        guard (1...Self.maxClients).contains(clients) else { throw SimulationInputError("--clients", "must be an integer 1-\(Self.maxClients)") }
        guard (1...Self.maxDays).contains(days) else { throw SimulationInputError("--days", "must be an integer 1-\(Self.maxDays)") }
        guard pollHours.isFinite, pollHours > 0, pollHours <= 24 * 365 else { throw SimulationInputError("--poll-hours", "must be a number of hours > 0 (at most a year)") }
        guard downloadMinutes.isFinite, downloadMinutes >= 0, downloadMinutes <= 60 * 24 * 30 else {
            throw SimulationInputError("--download-minutes", "must be a number of minutes 0-43200")
        }
        guard dailyActive.isFinite, dailyActive > 0, dailyActive <= 1 else { throw SimulationInputError("--daily-active", "must be a share in (0, 1]") }
        guard eventsPerDay.isFinite, eventsPerDay > 0, eventsPerDay <= 1000 else { throw SimulationInputError("--events-per-day", "must be a number in (0, 1000]") }
        switch truth {
        case .rate(let p, let effect):
            guard p.isFinite, (0...1).contains(p) else { throw SimulationInputError("--control-rate", "must be a probability 0-1") }
            guard effect.isFinite, (0...1).contains(p + effect) else {
                throw SimulationInputError("--effect", "must keep the challenger's rate (control rate + effect) within 0-1")
            }
        case .mean(let mu, let sd, let effect):
            guard mu.isFinite else { throw SimulationInputError("--control-mean", "must be a finite number") }
            guard sd.isFinite, sd >= 0 else { throw SimulationInputError("--sd", "must be a finite number ≥ 0") }
            guard effect.isFinite else { throw SimulationInputError("--effect", "must be a finite number") }
        }
        self.clients = clients
        self.days = days
        self.pollHours = pollHours
        self.downloadMinutes = downloadMinutes
        self.dailyActive = dailyActive
        self.eventsPerDay = eventsPerDay
        self.truth = truth
    }

    /// The truth must speak of the plan's metric: a rate for `rate`, a mean for `mean`.
    public func check(against metric: GuardPlan.Metric) throws(SimulationInputError) {
        switch (truth, metric.kind) {
        case (.rate, .rate), (.mean, .mean): return
        case (.rate, .mean): throw SimulationInputError("--control-rate", "the plan's metric is a mean: give --control-mean and --sd")
        case (.mean, .rate): throw SimulationInputError("--control-mean", "the plan's metric is a rate: give --control-rate")
        }
    }

    /// One event's observation through the evaluator's own rule (`Metric.observation`): a rate
    /// event carries the plan's outcome or none ("not the outcome"), a mean event its value.
    func observe(_ metric: GuardPlan.Metric, onChallenger: Bool, _ random: inout SeededRandom) -> Double? {
        switch truth {
        case .rate(let p, let effect):
            let hit = random.uniform() < (onChallenger ? p + effect : p)
            return metric.observation(outcome: hit ? metric.outcome : nil, value: nil)
        case .mean(let mu, let sd, let effect):
            return metric.observation(outcome: nil, value: (onChallenger ? mu + effect : mu) + sd * random.normal())
        }
    }
}

/// A simulation input out of range: the flag and what it must be (the CLI exits 2 with it).
public struct SimulationInputError: Error, Hashable, Sendable {
    public let flag: String
    public let message: String

    public init(_ flag: String, _ message: String) {
        self.flag = flag
        self.message = message
    }
}

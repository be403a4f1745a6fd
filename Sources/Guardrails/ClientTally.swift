/// The two arms of a guard (SPEC §11.2). A client's arm never changes.
public enum Arm: UInt8, Hashable, Sendable, CaseIterable {
    case treatment, control
}

/// What the evaluator keeps per client: the arm, its cohort (§11.2 v5), whether the SRM test
/// counts it yet, and the running count and total of its counted events, stored field by field
/// in a `ClientTable` (SPEC §11.5: ≤ 64 bytes per client).
/// The client's value is total/events: for `rate` the share of events with the outcome, for
/// `mean` the mean value (SPEC §11.1).
public struct ClientTally: Hashable, Sendable {
    /// Outcomes counted (`rate`, exact as a Double up to 2^53) or the sum of values (`mean`).
    public fileprivate(set) var total: Double
    public fileprivate(set) var events: UInt32
    public let arm: Arm
    /// The index of the stage at which the client's bucket entered its arm (`GuardPlan.cohort`).
    public let cohort: UInt8
    /// Whether the SRM test counts the client: from its first batch received after its
    /// cohort's stage began, whatever model that batch's events ran (docs/decisions/srm-counting.md).
    public fileprivate(set) var inSRM: Bool

    public init(arm: Arm, cohort: Int = 0) {
        self.init(arm: arm, cohort: UInt8(clamping: cohort), events: 0, total: 0, inSRM: false)
    }

    init(arm: Arm, cohort: UInt8, events: UInt32, total: Double, inSRM: Bool) {
        self.total = total
        self.events = events
        self.arm = arm
        self.cohort = cohort
        self.inSRM = inSRM
    }

    /// nil until the client's first counted event (it is not in its arm's n before that).
    public var value: Double? { events > 0 ? total / Double(events) : nil }
}

extension GuardPlan.Metric {
    /// What one event adds to its client's total: 1 or 0 for `rate` (an event without an
    /// outcome is "not the outcome"), the event's `value` for `mean` — nil when a `mean` event
    /// carries no value, which then does not count.
    public func observation(outcome: String?, value: Double?) -> Double? {
        switch kind {
        case .rate: return outcome == self.outcome ? 1 : 0
        case .mean: return value.flatMap { $0.isFinite ? $0 : nil }
        }
    }
}

/// Both arms' running sums, fed one client at a time as its events arrive (the evaluator) or
/// in bulk for clients whose values are already known (rebuilds, simulations). Both paths end
/// in the same `ArmStats`, which is what the decisions read. Apart from those, each arm's
/// clients in the SRM test are counted per cohort, for the test on settled cohorts (§11.2 v5).
public struct GuardAccumulator: Hashable, Sendable {
    public private(set) var treatment: ArmStats
    public private(set) var control: ArmStats
    /// Clients in the SRM test per cohort (stage index), one array per arm, grown as cohorts appear.
    private var cohortClients: [[Int]] = [[], []]

    /// Arms whose clients all belong to the first cohort.
    public init(treatment: ArmStats = ArmStats(), control: ArmStats = ArmStats()) {
        self.treatment = treatment
        self.control = control
        cohortClients = [[treatment.clients], [control.clients]]
    }

    public subscript(arm: Arm) -> ArmStats {
        switch arm {
        case .treatment: return treatment
        case .control: return control
        }
    }

    /// `events` new counted events of one client, their observations summing to `total`: the
    /// client's old value leaves its arm's sums and the new one enters (its first events add it
    /// to n). A client at UInt32.max events stops counting rather than wrap.
    public mutating func record(events: UInt32, total: Double, into tally: inout ClientTally) {
        guard events > 0, events <= UInt32.max - tally.events else { return }
        let old = tally.value
        tally.events += events
        tally.total += total
        let new = tally.total / Double(tally.events)
        update(tally.arm) { stats in
            if let old {
                stats.replace(old, with: new)
            } else {
                stats.add(clients: 1, sum: new, sumOfSquares: new * new)
            }
        }
    }

    /// Puts a client in the SRM test (once; `ArmRule.record` says when).
    public mutating func enterSRM(_ tally: inout ClientTally) {
        guard !tally.inSRM else { return }
        tally.inSRM = true
        countClients(1, arm: tally.arm, cohort: Int(tally.cohort))
    }

    /// `count` clients of `cohort` with known values summing to `sum` (squares to `sumOfSquares`),
    /// in the SRM test as well.
    public mutating func add(clients count: Int, sum: Double, sumOfSquares: Double, to arm: Arm, cohort: Int = 0) {
        update(arm) { $0.add(clients: count, sum: sum, sumOfSquares: sumOfSquares) }
        countClients(count, arm: arm, cohort: cohort)
    }

    /// Clients of `arm` in the SRM test from the first `cohorts` cohorts.
    public func clients(_ arm: Arm, cohorts: Int) -> Int {
        cohortClients[Int(arm.rawValue)].prefix(cohorts).reduce(0, +)
    }

    private mutating func countClients(_ n: Int, arm: Arm, cohort: Int) {
        let a = Int(arm.rawValue)
        if cohortClients[a].count <= cohort { cohortClients[a] += Array(repeating: 0, count: cohort + 1 - cohortClients[a].count) }
        cohortClients[a][cohort] += n
    }

    private mutating func update(_ arm: Arm, _ change: (inout ArmStats) -> Void) {
        switch arm {
        case .treatment: change(&treatment)
        case .control: change(&control)
        }
    }
}

import Guardrails

/// What one simulated run did: its decision records (SPEC §11.5 lines), when each stage
/// began, and how it ended.
public struct SimulatedRun: Sendable {
    /// How a run counts over runs (SPEC §11.6): by its final status, once.
    public enum Outcome: String, Sendable, CaseIterable {
        case promoted, paused, srm, inconclusive
        case noData = "no_data"
        /// Still deciding when virtual time ran out (collecting, healthy, or an `srm` that only
        /// notified).
        case running
    }

    public let seed: UInt64
    /// The last evaluation's status.
    public internal(set) var finalStatus = GuardStatus.collecting
    public private(set) var outcome = Outcome.running
    /// The decision records in order, each the JSON line the evaluator would append.
    public private(set) var decisions: [[UInt8]] = []
    /// Each stage (rollout percent, 100 after a promotion) and when it began (engine time).
    public private(set) var stageStarts: [(stage: Int, at: Int64)]
    /// Whether any decision had rule `srm`.
    public private(set) var raisedSRM = false

    init(seed: UInt64, firstStage: Int) {
        self.seed = seed
        stageStarts = [(firstStage, SimulationClock.epoch)]
    }

    /// Hours from the start to 100 %, nil for a run never promoted.
    public var hoursToFull: Double? {
        guard let last = stageStarts.last, last.stage == 100 else { return nil }
        return Double(last.at - SimulationClock.epoch) / 3_600_000
    }

    mutating func record(_ decision: GuardDecision, at now: Int64, line: [UInt8]) {
        decisions.append(line)
        if let next = decision.nextStage { stageStarts.append((next, now)) }
        if decision.rule == .srm { raisedSRM = true }
    }

    mutating func finish(plan: GuardPlan) {
        outcome = switch finalStatus {
        case .promoted: .promoted
        case .pausedRegression: .paused
        case .srm where plan.onSRM == .pause: .srm
        case .inconclusive: .inconclusive
        case .noData: .noData
        default: .running
        }
    }
}

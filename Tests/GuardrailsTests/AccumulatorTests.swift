import Testing
import TestRandomness
@testable import Guardrails

@Suite struct AccumulatorTests {
    /// Clients whose events arrive in many small batches end with the sums their final values
    /// give computed from scratch: the old value leaves, the new one enters (SPEC §11.3).
    @Test(arguments: [GuardPlan.Metric.Kind.rate, .mean])
    func incrementalUpdates_equalRecomputedSums_SPEC11_3(_ kind: GuardPlan.Metric.Kind) throws {
        let metric = kind == .rate ? try GuardPlan.Metric(name: "m", outcome: "yes") : try GuardPlan.Metric(name: "m", kind: .mean)
        var random = SeededRandom(seed: 42)
        var tallies = (0..<300).map { ClientTally(arm: $0 % 3 == 0 ? .control : .treatment) }
        var arms = GuardAccumulator()
        for _ in 0..<5_000 {
            let i = Int(random.next() % UInt64(tallies.count))
            var events: UInt32 = 0, total = 0.0
            for _ in 0..<(1 + random.next() % 4) {
                let outcome = random.next() % 5 == 0 ? "yes" : (random.next() % 2 == 0 ? "no" : nil)
                guard let x = metric.observation(outcome: outcome, value: random.normal() * 40 + 250) else { continue }
                events += 1
                total += x
            }
            arms.record(events: events, total: total, into: &tallies[i])
        }
        for arm in Arm.allCases {
            let values = tallies.filter { $0.arm == arm }.compactMap(\.value)
            let s = arms[arm]
            #expect(s.clients == values.count)
            #expect(close(s.sum, values.reduce(0, +), rel: 1e-12))
            #expect(close(s.sumOfSquares, values.reduce(0) { $0 + $1 * $1 }, rel: 1e-12))
        }
    }

    @Test func clientCountsFromItsFirstEvent_SPEC11_2() {
        var arms = GuardAccumulator()
        var tally = ClientTally(arm: .control)
        arms.record(events: 0, total: 0, into: &tally)
        #expect(arms.control.clients == 0 && tally.value == nil)
        arms.record(events: 1, total: 1, into: &tally)
        arms.record(events: 3, total: 0, into: &tally)
        #expect(arms.control == ArmStats(clients: 1, sum: 0.25, sumOfSquares: 0.0625))
        #expect(arms.treatment == ArmStats())
        #expect(tally.value == 0.25 && tally.events == 4)
    }

    @Test func eventCountSaturatesInsteadOfWrapping() {
        var arms = GuardAccumulator()
        var tally = ClientTally(arm: .treatment)
        arms.record(events: .max, total: 0, into: &tally)
        arms.record(events: 1, total: 1, into: &tally)
        #expect(tally.events == .max && tally.total == 0 && arms.treatment.clients == 1)
    }

    /// Variance divided by n; for 0/1 values exactly p̂(1−p̂).
    @Test func armStats_meanAndVariance_SPEC11_3() {
        let rate = ArmStats(clients: 1_000, sum: 50, sumOfSquares: 50)
        #expect(rate.mean == 0.05 && close(rate.variance, 0.05 * 0.95, rel: 1e-15))
        #expect(ArmStats().mean == nil && ArmStats().variance == nil)
        // All values equal: rounding must not make the variance negative.
        let flat = ArmStats(clients: 3, sum: 0.3, sumOfSquares: 0.03)
        #expect(flat.variance! >= 0)
    }

    @Test func observation_perKind_SPEC11_1() throws {
        let rate = try GuardPlan.Metric(name: "m", outcome: "purchased")
        #expect(rate.observation(outcome: "purchased", value: nil) == 1)
        #expect(rate.observation(outcome: "declined", value: 3) == 0)
        #expect(rate.observation(outcome: nil, value: nil) == 0)   // no outcome: "not the outcome"
        let mean = try GuardPlan.Metric(name: "m", kind: .mean)
        #expect(mean.observation(outcome: "x", value: 2.5) == 2.5)
        #expect(mean.observation(outcome: nil, value: nil) == nil)  // no value: does not count
    }
}

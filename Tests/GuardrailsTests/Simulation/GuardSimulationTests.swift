import Testing
import TestRandomness
@testable import Guardrails

/// Issue #11 item 3: the decision engine under continuous monitoring, seeded. Every scenario
/// goes through `GuardAccumulator` and `GuardEngine.evaluate`, the code the evaluator runs.
/// Setting (reference/guardrails.md §2.5): 5 % baseline, a look every 250 clients per arm up to
/// 50,000 per arm (200 looks), S = 20,000, α = 0.05 one-sided, ≥ 1,000 clients per arm.
@Suite struct GuardSimulationTests {
    static let looks = 200
    static let perLook = 250
    static let baseline = 0.05

    func pauses(runs: Int, seed: UInt64, treatment: Double, rule: @escaping (GuardAccumulator) -> Bool) -> [Int?] {
        Monitoring(runs: runs, looks: Self.looks, seed: seed).firstActions(
            start: { GuardAccumulator() },
            grow: Monitoring.bernoulliLook(perLook: Self.perLook, treatment: treatment, control: Self.baseline),
            rules: [rule])[0]
    }

    /// A/A: the guard pauses an unchanged model in ≤ 3.5 % of 4,000 runs (reference 2.6 %).
    @Test func aa_continuousMonitoring_falsePauseAtMost3_5Percent_SPEC11_3() {
        let runs = pauses(runs: 4_000, seed: 0xA11A, treatment: Self.baseline, rule: Rule.guardPauses(.simulated()))
        let rate = Rate(hits: runs.compactMap { $0 }.count, runs: runs.count)
        print("guard simulation: A/A false pause \(rate)")
        #expect(rate.value <= 0.035, "A/A false pause \(rate)")
    }

    /// The same harness with a fixed-horizon z-test at every look must fail (≥ 25 %; reference
    /// 31 %): proof that the harness can tell a valid rule from an invalid one.
    @Test func aa_naiveZTestThroughSameHarness_failsAtLeast25Percent() {
        let runs = pauses(runs: 1_000, seed: 0xA11B, treatment: Self.baseline, rule: Rule.naiveZPauses(minClientsPerArm: 1_000))
        let rate = Rate(hits: runs.compactMap { $0 }.count, runs: runs.count)
        print("guard simulation: A/A naive z-test false pause \(rate)")
        #expect(rate.value >= 0.25, "naive z-test \(rate)")
    }

    /// −10 % relative (5 % → 4.5 %): paused by 45,000 clients per arm in ≥ 80 % of runs.
    @Test func drop10Percent_pausedBy45kPerArm_inAtLeast80Percent_SPEC11_3() {
        let runs = pauses(runs: 4_000, seed: 0xD20, treatment: 0.045, rule: Rule.guardPauses(.simulated()))
        let byLimit = Rate(hits: runs.filter { ($0 ?? Self.looks + 1) * Self.perLook <= 45_000 }.count, runs: runs.count)
        let sorted = runs.map { $0 ?? Self.looks + 1 }.sorted()
        let median = sorted[sorted.count / 2]
        print("guard simulation: −10 % paused by 45k/arm \(byLimit); median at \(median > Self.looks ? "never" : "\(median * Self.perLook)") clients per arm")
        #expect(byLimit.value >= 0.80, "−10 % paused by 45k per arm: \(byLimit)")
    }

    /// +10 % relative (5 % → 5.5 %): a better model is paused in ≤ 0.5 % of runs (reference 0.05 %).
    @Test func lift10Percent_falsePauseAtMostHalfPercent() {
        let runs = pauses(runs: 2_000, seed: 0x11F7, treatment: 0.055, rule: Rule.guardPauses(.simulated()))
        let rate = Rate(hits: runs.compactMap { $0 }.count, runs: runs.count)
        print("guard simulation: +10 % false pause \(rate)")
        #expect(rate.value <= 0.005, "+10 % false pause \(rate)")
    }

    /// SRM A/A: clients land in either arm with probability ½ (500 a look, 200 looks; outcome
    /// values all 0, so nothing but SRM can act). The guard's sequential test, its p-value
    /// carried from look to look as the evaluator carries it, flags ≤ 0.5 % of runs (Ville's
    /// inequality bounds it by 0.1 %); the χ² test SPEC §11.3 names, re-run at every look on
    /// the same clients, flags ≥ 0.5 % (reference/guardrails.md §2.3: 2.0 %), so the test can fail.
    @Test func srm_aa_sequentialTestHolds_chiSquaredAtEveryLookDoesNot_SPEC11_3() {
        struct Watch {
            var arms = GuardAccumulator()
            var pValue: Double?
            var flagged = false
        }
        let plan = GuardPlan.simulated()
        let firsts = Monitoring(runs: 2_000, looks: Self.looks, seed: 0x5A3).firstActions(
            start: { Watch() },
            grow: { random, w in
                let treatment = random.fairCoins(2 * Self.perLook)
                w.arms.add(clients: treatment, sum: 0, sumOfSquares: 0, to: .treatment)
                w.arms.add(clients: 2 * Self.perLook - treatment, sum: 0, sumOfSquares: 0, to: .control)
                let e = GuardEngine.evaluate(plan, stage: plan.stages[0], arms: w.arms, now: 0, srmPValue: w.pValue)
                w.pValue = e.figures.srm.pValue
                w.flagged = e.decision?.rule == .srm
            },
            rules: [{ $0.flagged }, { Rule.chiSquaredFlagsSRM($0.arms) }])
        let sequential = Rate(hits: firsts[0].compactMap { $0 }.count, runs: firsts[0].count)
        let chiSquared = Rate(hits: firsts[1].compactMap { $0 }.count, runs: firsts[1].count)
        print("guard simulation: SRM A/A false alarm \(sequential); χ² at every look \(chiSquared)")
        #expect(sequential.value <= 0.005, "SRM A/A \(sequential)")
        #expect(chiSquared.value >= 0.005, "χ² at every look \(chiSquared)")
    }

    /// Clustered A/A: 20 events per client (delivered in two batches of 10, so each client's
    /// value is updated in place), client rates Beta(0.5, 9.5) — a few clients convert a lot.
    /// Per client the guard pauses in ≤ 5 %; the same events counted one per unit (the bug this
    /// test exists to catch) pause far more often, and the test checks that too.
    /// A look every 250 clients per arm up to 5,000 per arm, S = 10,000 (that sample).
    @Test func clusteredAA_perClientHolds5Percent_perEventDoesNot_SPEC11_3() {
        struct Arms { var clients = GuardAccumulator(), events = GuardAccumulator() }
        let pauses = Rule.guardPauses(.simulated(tuningClients: 10_000))
        let firsts = Monitoring(runs: 1_000, looks: 20, seed: 0xC1A5).firstActions(
            start: { Arms() },
            grow: { random, arms in
                for arm in Arm.allCases {
                    for _ in 0..<Self.perLook {
                        let p = random.beta(0.5, 9.5)
                        let first = Double(random.binomial(10, p)), second = Double(random.binomial(10, p))
                        var tally = ClientTally(arm: arm)
                        arms.clients.record(events: 10, total: first, into: &tally)
                        arms.clients.record(events: 10, total: second, into: &tally)
                        arms.events.add(clients: 20, sum: first + second, sumOfSquares: first + second, to: arm)
                    }
                }
            },
            rules: [{ pauses($0.clients) }, { pauses($0.events) }])
        let perClient = Rate(hits: firsts[0].compactMap { $0 }.count, runs: firsts[0].count)
        let perEvent = Rate(hits: firsts[1].compactMap { $0 }.count, runs: firsts[1].count)
        print("guard simulation: clustered A/A false pause per client \(perClient), per event \(perEvent)")
        #expect(perClient.value <= 0.05, "clustered A/A per client \(perClient)")
        #expect(perEvent.value > 0.05, "counting events instead of clients should break the 5 % bound: \(perEvent)")
    }
}

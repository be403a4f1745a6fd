import Guardrails
import JSONSupport
import Testing
@testable import GuardSimulation

/// SPEC §11.6 through the simulator's library: reproducible by seed, and the guard's
/// behaviour at real poll intervals with small fleets (fast in a debug build).
@Suite struct FleetSimulationTests {
    static let metric = try! GuardPlan.Metric(name: "upsell_prompt", outcome: "purchased")

    /// The default plan (settle_seconds included) scaled to a small fleet: 10,000 clients have
    /// 100 per arm at stage 1.
    static func plan(settleSeconds: Int = GuardPlan.defaultSettleSeconds) throws -> GuardPlan {
        try GuardPlan(metric: metric, minClientsPerArm: 50, settleSeconds: settleSeconds)
    }

    static func fleet(clients: Int = 10_000, days: Int = 6, effect: Double = 0) throws -> FleetModel {
        try FleetModel(clients: clients, days: days, truth: .rate(control: 0.3, effect: effect))
    }

    @Test func sameSeed_sameRunByteForByte_otherSeed_otherRun_SPEC11_6() throws {
        let simulation = FleetSimulation(plan: try Self.plan(), fleet: try Self.fleet(days: 3))
        let a = simulation.summary(runs: 2, seed: 42).json()
        #expect(a == simulation.summary(runs: 2, seed: 42).json())
        #expect(a != simulation.summary(runs: 2, seed: 43).json())
        // Run r is seed + r: the second run of seed 42 is the first of seed 43.
        #expect(simulation.summary(runs: 2, seed: 42).runs[1].decisions == simulation.run(seed: 43).decisions)
    }

    /// No effect, 4-hour polls, the default plan: both halves of each new cohort join the SRM
    /// test at their first check after the advance (docs/decisions/srm-counting.md), so no run
    /// raises `srm`. v4's rule (`settle_seconds` 0: the counted clients, a treatment client only
    /// once its events ran the challenger, a check later) raises it in the same runs: the test
    /// can fail.
    @Test func noEffect_fourHourPolls_defaultPlan_noSRM_butV4RuleRaisesIt_SPEC11_2_SPEC11_6() throws {
        let settled = FleetSimulation(plan: try Self.plan(), fleet: try Self.fleet()).summary(runs: 6, seed: 1)
        #expect(settled.runsRaisingSRM == 0, "\(settled.text())")
        #expect(settled.count(.promoted) >= 5, "\(settled.text())")
        let v4 = FleetSimulation(plan: try Self.plan(settleSeconds: 0), fleet: try Self.fleet()).summary(runs: 3, seed: 1)
        #expect(v4.runsRaisingSRM >= 2, "v4's rule should raise srm after advances: \(v4.text())")
    }

    /// A real mismatch is still caught by the sequential SRM test: a tenth of the treatment
    /// clients lose every report (47.4 % of the reporters in treatment). The test needs about
    /// 11,000 settled clients at that split, which 40,000 clients reach once the 25 % cohort
    /// has settled (day 3 at one-day stages). The same fleet without the loss raises nothing.
    @Test func tenthOfTreatmentReportersLost_raisesSRM_SPEC11_3() throws {
        var lossy = try Self.fleet(clients: 40_000, days: 4)
        lossy.lostTreatmentReporters = 0.1
        let caught = FleetSimulation(plan: try Self.plan(), fleet: lossy).summary(runs: 2, seed: 11)
        #expect(caught.runsRaisingSRM == 2, "\(caught.text())")
        let intact = FleetSimulation(plan: try Self.plan(), fleet: try Self.fleet(clients: 40_000, days: 4)).summary(runs: 1, seed: 11)
        #expect(intact.runsRaisingSRM == 0, "\(intact.text())")
    }

    /// Harm well beyond the margin (0.3 → 0.2): every run pauses, none is promoted.
    @Test func strongNegativeEffect_pausedNeverPromoted_SPEC11_6() throws {
        let summary = FleetSimulation(plan: try Self.plan(), fleet: try Self.fleet(effect: -0.1)).summary(runs: 6, seed: 7)
        #expect(summary.count(.paused) == 6, "\(summary.text())")
        #expect(summary.count(.promoted) == 0)
        for run in summary.runs {
            let rules = try run.decisions.map { try Self.rule(of: $0) }
            #expect(rules.last == "pause" && !rules.contains("promote"), "\(rules)")
        }
    }

    /// A promoted run soaked every stage: five stages of a day each before 100 %, and the
    /// records are §11.5 lines in virtual time.
    @Test func promotedRun_soaksEveryStage_recordsInVirtualTime_SPEC11_6() throws {
        let run = FleetSimulation(plan: try Self.plan(), fleet: try Self.fleet()).run(seed: 3)
        #expect(run.outcome == .promoted)
        #expect(run.stageStarts.map(\.stage) == [1, 5, 10, 25, 50, 100])
        #expect(try #require(run.hoursToFull) >= 120)
        let first = try JSONReader.parse(try #require(run.decisions.first)).value
        #expect(first["ts"]?.stringValue?.hasPrefix("2026-01-0") == true)
        #expect(first["release"]?.stringValue == FleetSimulation.planReleaseID)
        #expect(first["srm"]?["cohorts"] != nil && first["guard"]?["status"]?.stringValue == "healthy")
    }

    @Test func summary_countsOutcomesAndRanksHours() {
        var runs: [SimulatedRun] = []
        for (i, hours) in [nil, 130, 120, 150, 125].enumerated() {
            var run = SimulatedRun(seed: UInt64(i), firstStage: 1)
            if let hours {
                let now = SimulationClock.epoch + Int64(hours) * 3_600_000
                run.record(GuardDecision(rule: .promote, stage: 50, nextStage: 100), at: now, line: [])
                run.finalStatus = .promoted
            } else {
                run.record(GuardDecision(rule: .srm, stage: 1), at: SimulationClock.epoch, line: [])
                run.finalStatus = .srm
            }
            run.finish(plan: try! Self.plan())
            runs.append(run)
        }
        let summary = SimulationSummary(runs: runs)
        #expect(summary.count(.promoted) == 4 && summary.count(.running) == 1 && summary.runsRaisingSRM == 1)
        #expect(summary.hoursToFull(percentile: 0.5) == 125 && summary.hoursToFull(percentile: 0.9) == 150)
        #expect(SimulationSummary(runs: []).hoursToFull(percentile: 0.5) == nil)
    }

    @Test func fleetModel_refusesOutOfRangeInputs_namingTheFlag() {
        func flag(_ make: () throws -> FleetModel) -> String? {
            do { _ = try make(); return nil } catch { return (error as? SimulationInputError)?.flag }
        }
        #expect(flag { try FleetModel(clients: 0, truth: .rate(control: 0.1, effect: 0)) } == "--clients")
        #expect(flag { try FleetModel(days: 0, truth: .rate(control: 0.1, effect: 0)) } == "--days")
        #expect(flag { try FleetModel(pollHours: 0, truth: .rate(control: 0.1, effect: 0)) } == "--poll-hours")
        #expect(flag { try FleetModel(dailyActive: 1.5, truth: .rate(control: 0.1, effect: 0)) } == "--daily-active")
        #expect(flag { try FleetModel(eventsPerDay: 0, truth: .rate(control: 0.1, effect: 0)) } == "--events-per-day")
        #expect(flag { try FleetModel(truth: .rate(control: 1.2, effect: 0)) } == "--control-rate")
        #expect(flag { try FleetModel(truth: .rate(control: 0.1, effect: -0.2)) } == "--effect")
        #expect(flag { try FleetModel(truth: .mean(control: 1, sd: -1, effect: 0)) } == "--sd")
    }

    static func rule(of line: [UInt8]) throws -> String? {
        try JSONReader.parse(line).value["rule"]?.stringValue
    }
}

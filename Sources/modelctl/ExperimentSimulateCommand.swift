import ArgumentParser
import CivilTime
import Foundation
import GuardSimulation
import Guardrails

/// `modelctl experiment simulate` (SPEC §11.6): a guard plan against a simulated fleet in
/// virtual time. The simulation is `GuardSimulation` (pure); this reads the flags and the plan
/// and prints what it says.
struct ExperimentSimulateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate", abstract: "Run a guard plan against a simulated fleet in virtual time.",
        discussion: "Clients check for updates at exponential gaps (mean --poll-hours), run a new model a lognormal delay "
            + "after being served it (median --download-minutes), and on the days they use the app (share --daily-active) "
            + "send --events-per-day outcome events drawn from the truth per arm. The evaluator's own arm rule, accumulator "
            + "and engine decide, every 60 s of virtual time from 2026-01-01T00:00:00Z. Run r uses seed --seed + r "
            + "(--seed S --runs 1 replays the run printed with seed S).")

    @OptionGroup var global: GlobalOptions
    @Option(help: "The guard to simulate (SPEC §11.1): a JSON object, or a file holding one.") var plan: String?
    @Option(help: "Simulate this release's guard, read from the server.") var release: String?
    @Option(help: "Clients in the fleet.") var clients = 100_000
    @Option(help: "Days of virtual time.") var days = 14
    @Option(help: "Mean hours between a client's update checks (exponential gaps).") var pollHours = 4.0
    @Option(help: "Median minutes from being served a release to running it (lognormal).") var downloadMinutes = 10.0
    @Option(help: "Share of clients that use the app on a given day; only they send events.") var dailyActive = 0.6
    @Option(help: "Events a client sends on a day it uses the app.") var eventsPerDay = 3.0
    @Option(help: "Rate metric: the baseline's true outcome rate per event, 0-1.") var controlRate: Double?
    @Option(help: "Mean metric: the baseline's true mean value per event.") var controlMean: Double?
    @Option(help: "Mean metric: the standard deviation of an event's value.") var sd: Double?
    @Option(help: "The challenger's true effect, absolute (rate or value units; default 0).") var effect = 0.0
    @Option(help: "Independent runs.") var runs = 1
    @Option(help: "Seed of the first run (default 1).") var seed: UInt64 = 1

    func validate() throws {
        guard (plan == nil) != (release == nil) else { throw ValidationError("give either --plan FILE|JSON or --release ID") }
        if let release { try AdminValidation.releaseID(release) }
        guard (1...100_000).contains(runs) else { throw ValidationError("--runs must be an integer 1-100000") }
        _ = try fleet()
        if let plan { _ = try Self.parsePlan(plan) }
    }

    func run() throws {
        try failing {
            let fleet = try fleet()
            let plan: GuardPlan, releaseID: String
            if let release {
                (plan, releaseID) = (try Self.guardPlan(of: release, global: global), release)
            } else {
                (plan, releaseID) = (try Self.parsePlan(self.plan ?? ""), FleetSimulation.planReleaseID)
            }
            do throws(SimulationInputError) { try fleet.check(against: plan.metric) } catch {
                throw CLIFailure("\(error.flag): \(error.message)", exitCode: 2)
            }
            let summary = FleetSimulation(plan: plan, fleet: fleet, releaseID: releaseID).summary(runs: runs, seed: seed)
            if global.json { return printOutput(String(decoding: summary.json(), as: UTF8.self) + "\n") }
            printOutput(summary.text() + "\n")
        }
    }

    /// The fleet the flags describe; the truth is a rate with --control-rate, a mean with
    /// --control-mean and --sd.
    private func fleet() throws -> FleetModel {
        let truth: FleetModel.Truth
        switch (controlRate, controlMean, sd) {
        case (let p?, nil, nil): truth = .rate(control: p, effect: effect)
        case (nil, let mu?, let sd?): truth = .mean(control: mu, sd: sd, effect: effect)
        case (nil, _?, nil): throw ValidationError("--control-mean needs --sd")
        case (nil, nil, _?): throw ValidationError("--sd needs --control-mean")
        case (nil, nil, nil): throw ValidationError("give the truth: --control-rate P (rate metric) or --control-mean M --sd S (mean metric)")
        default: throw ValidationError("--control-rate (rate metric) cannot be combined with --control-mean/--sd (mean metric)")
        }
        do throws(SimulationInputError) {
            return try FleetModel(clients: clients, days: days, pollHours: pollHours, downloadMinutes: downloadMinutes,
                                  dailyActive: dailyActive, eventsPerDay: eventsPerDay, truth: truth)
        } catch {
            throw ValidationError("\(error.flag) \(error.message)")
        }
    }

    /// `--plan`: a guard as an operator publishes it, validated by the server's own rules.
    private static func parsePlan(_ source: String) throws -> GuardPlan {
        let text = try GuardOptions.text(of: source)
        do throws(GuardPlanError) { return try GuardPlan(json: Array(text.utf8)) } catch {
            throw ValidationError("--plan: \(error.field): \(error.message)")
        }
    }

    /// `--release`: the guard the release carries (the simulation starts it afresh).
    private static func guardPlan(of id: String, global: GlobalOptions) throws -> GuardPlan {
        struct Guarded: Decodable { let `guard`: GuardPlan.Document? }
        let body = try global.adminAPI().release(id)
        guard let document = try? JSONDecoder().decode(Guarded.self, from: Data(body)) else {
            throw CLIFailure("unexpected response from server: \(String(decoding: body.prefix(200), as: UTF8.self))")
        }
        guard let stored = document.guard else { throw CLIFailure("release \(id) has no guard to simulate") }
        do throws(GuardPlanError) { return try GuardPlan(stored: stored, parseTime: RFC3339.parse) } catch {
            throw CLIFailure("release \(id): \(error.field): \(error.message)")
        }
    }
}

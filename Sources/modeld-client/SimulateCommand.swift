import ArgumentParser
import Foundation
import ReleaseSelection
import ModeldClient

struct SimulateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Many simulated installs with their own ids, posting outcome events with probability P per model.",
        discussion: "Each check of a client that runs a model carries one event named --name with outcome success (probability P of that model) or failure. --cache is not used.")
    @ParentCommand var root: ModeldClientCommand
    @Option(help: "Number of simulated installs.") var clients: Int
    @Option(help: "How long to run: seconds, or with a unit (30s, 5m, 1h).") var duration: String
    @Option(help: "Update checks per second over all clients.") var rate: Double = 100
    @Option(help: "Event name (a guard's metric.name).") var name = "prediction"
    @Option(help: "MODEL_ID=P: probability of outcome success for events about that model (P in 0…1; MODEL_ID 'default' for the rest); repeatable.")
    var outcome: [String] = []

    func run() async throws {
        guard let server = root.server ?? root.rules, let url = URL(string: server) else {
            throw CLIFailure.usage("simulate needs --server URL, or --rules URL (with --events URL for the events)")
        }
        var rules: RulesFeed?
        if root.rules != nil {
            guard let sdk = SDKVersion(root.sdk) else { throw CLIFailure.usage("--sdk '\(root.sdk)' is not MAJOR[.MINOR[.PATCH]]") }
            let verifier = try RulesVerifier(channel: root.channel, trustedKeys: try root.trustedKeys())
            rules = RulesFeed(base: url, events: root.events.flatMap(URL.init(string:)), sdk: sdk,
                              device: try root.device.attributes(), verifier: verifier)
        }
        guard clients >= 1 else { throw CLIFailure.usage("--clients must be ≥ 1") }
        guard rate > 0, rate.isFinite else { throw CLIFailure.usage("--rate must be > 0") }
        guard let seconds = Self.seconds(duration) else { throw CLIFailure.usage("--duration '\(duration)': expected e.g. 30, 30s, 5m, 1h") }
        var probabilities: [String: Double] = [:]
        for entry in outcome {
            let parts = entry.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, let p = Double(parts[1]), (0...1).contains(p) else {
                throw CLIFailure.usage("--outcome '\(entry)': expected MODEL_ID=P with P in 0…1")
            }
            probabilities[parts[0]] = p
        }
        let plan = Simulation.Plan(server: url, rules: rules, sdk: root.sdk, channel: root.channel, clients: clients, duration: seconds,
                                   rate: rate, eventName: name, probabilities: probabilities,
                                   defaultProbability: probabilities["default"] ?? 0)
        let report = await Simulation(plan: plan).run()
        if root.json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
        } else {
            print(String(format: "%d clients, %.1f s: %d update checks (%.0f/s), %d events (%.0f/s), %d errors",
                         report.clients, report.seconds, report.checks, report.checksPerSecond, report.events,
                         report.eventsPerSecond, report.errors))
            for (id, m) in report.models.sorted(by: { $0.key < $1.key }) {
                print("  \(id): \(m.clients) clients, \(m.events) events, \(m.successes) success")
            }
        }
        if report.checks > 0 && report.errors == report.checks {
            printError("modeld-client: every update check failed (is \(server) a modeld?)")
            throw ExitCode(1)
        }
    }

    static func seconds(_ text: String) -> TimeInterval? {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600]
        if let unit = text.last, let factor = units[unit], let n = Double(text.dropLast()), n > 0 { return n * factor }
        if let n = Double(text), n > 0 { return n }
        return nil
    }
}

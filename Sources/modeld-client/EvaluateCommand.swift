import ArgumentParser
import Foundation
import ReleaseSelection
import ModeldClient

/// `modeld-client evaluate --snapshot FILE`: evaluates a rules snapshot (SPEC §9.2) locally for
/// many client ids with this command's --sdk and device flags, and prints what it answered and
/// how long decoding and one evaluation took — what a device does on each check
/// (Benchmarks/rules/run.sh). Not verification: the file is taken as given.
struct EvaluateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "evaluate", abstract: "Time the local evaluation of a rules snapshot file (benchmark).", shouldDisplay: false)
    @ParentCommand var root: ModeldClientCommand
    @Option(help: "A rules/<channel>/<N>.json file.") var snapshot: String
    @Option(help: "Evaluations (one client id each).") var iterations = 100_000

    func run() async throws {
        guard let sdk = SDKVersion(root.sdk) else { throw CLIFailure.usage("--sdk '\(root.sdk)' is not MAJOR[.MINOR[.PATCH]]") }
        guard iterations >= 1 else { throw CLIFailure.usage("--iterations must be ≥ 1") }
        guard let data = FileManager.default.contents(atPath: snapshot) else { throw CLIFailure("cannot read \(snapshot)") }
        let device = try root.device.attributes()
        let clock = ContinuousClock()
        var rules: RulesSnapshot?
        let decode = try clock.measure { rules = try JSONDecoder().decode(RulesSnapshot.self, from: data).validated() }
        let decoded = rules!
        var answers: [String: Int] = [:]
        let ids = (0..<iterations).map { "bench-\($0)" }
        var hits = 0
        let evaluate = clock.measure {
            for id in ids where decoded.answer(sdk: sdk, clientID: id, device: device)?.variant != nil { hits += 1 }
        }
        for id in ids.prefix(1000) {
            answers[decoded.answer(sdk: sdk, clientID: id, device: device).map { "\($0.release.label)/\($0.variant?.name ?? "-")" } ?? "none", default: 0] += 1
        }
        func micros(_ d: Duration) -> Double { Double(d.components.seconds) * 1e6 + Double(d.components.attoseconds) / 1e12 }
        let result: [String: Any] = [
            "bytes": data.count, "releases": decoded.releases.count,
            "variants": decoded.releases.reduce(0) { $0 + $1.variants.count },
            "decode_us": micros(decode), "evaluate_us_per_check": micros(evaluate) / Double(iterations),
            "iterations": iterations, "variant_answers": hits, "first_1000": answers,
        ]
        print(String(decoding: try JSONSerialization.data(withJSONObject: result, options: [.sortedKeys]), as: UTF8.self))
    }
}

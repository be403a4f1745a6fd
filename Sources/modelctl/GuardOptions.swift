import ArgumentParser
import Foundation
import Guardrails

/// The guard of `modelctl publish` (SPEC §11.1): `--guard FILE|JSON`, or the short flags that
/// spell the same object. Validated here with the server's own rules (exit 2 naming the field)
/// and sent as the operator wrote it; the server validates again.
struct GuardOptions: ParsableArguments {
    @Option(name: .customLong("guard"), help: "The guard as a JSON object, or a file holding one.") var guardSource: String?
    @Option(help: ArgumentHelp("Guard metric: NAME:OUTCOME (kind rate) or NAME (kind mean, the events' value).", valueName: "metric"))
    var guardMetric: String?
    @Option(help: "higher_is_better (default) or lower_is_better.") var guardDirection: String?
    @Option(help: ArgumentHelp("Guard stages, increasing percentages 1-50 (default 1,5,10,25,50).", valueName: "p,p,…")) var stages: String?
    @Option(help: "guard (default: promote unless harmful) or prove (promote only when proven better).") var guardGoal: String?
    @Option(help: "Soak time of each stage (default 86400).") var minStageSeconds: Int?
    @Option(help: "Clients each arm needs before any decision (default 1000).") var minClientsPerArm: Int?
    @Option(help: "False-decision rate of the sequential test, in (0, 0.5) (default 0.05).") var alpha: Double?
    @Option(help: "Clients per arm the bound is tuned for (default 20000).") var tuningClients: Int?
    @Option(help: "Harm tolerated before a pause, in the metric's units (default 0).") var regressionMargin: Double?
    @Option(help: "goal prove: stop as inconclusive after this long (default 1209600).") var maxSeconds: Int?
    @Option(help: "Status no_data after this long in a stage without enough clients (default 172800).") var noDataSeconds: Int?
    @Option(help: "notify (default) or pause the release on a sample ratio mismatch.") var onSrm: String?
    @Option(help: "Age a stage's cohort needs before the SRM test uses it; 0 = at once (default 14400).") var settleSeconds: Int?

    /// The guard's JSON text, or nil when none was asked for.
    func json() throws -> String? {
        if let guardSource {
            guard !hasShortFlags else { throw ValidationError("--guard cannot be combined with --guard-metric and the other guard flags") }
            let text = try Self.text(of: guardSource)
            try Self.check { () throws(GuardPlanError) in _ = try GuardPlan(json: Array(text.utf8)) }
            return text
        }
        guard let guardMetric else {
            if hasShortFlags { throw ValidationError("the guard flags need --guard-metric NAME:OUTCOME (or --guard)") }
            return nil
        }
        var d = GuardPlan.Document()
        let parts = guardMetric.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        d.metric = GuardPlan.Document.Metric(name: parts[0], outcome: parts.count > 1 ? parts[1] : nil,
                                             kind: parts.count > 1 ? "rate" : "mean", direction: guardDirection)
        if let stages {
            d.stages = try stages.split(separator: ",", omittingEmptySubsequences: false).map {
                guard let p = Int($0.trimmingCharacters(in: .whitespaces)) else { throw ValidationError("--stages '\(stages)' must be integers separated by commas") }
                return p
            }
        }
        d.goal = guardGoal
        d.minStageSeconds = minStageSeconds
        d.minClientsPerArm = minClientsPerArm
        d.alpha = alpha
        d.tuningClients = tuningClients
        d.regressionMargin = regressionMargin
        d.maxSeconds = maxSeconds
        d.noDataSeconds = noDataSeconds
        d.onSRM = onSrm
        d.settleSeconds = settleSeconds
        try Self.check { () throws(GuardPlanError) in _ = try GuardPlan(operatorInput: d) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(d), as: UTF8.self)
    }

    private var hasShortFlags: Bool {
        let given: [Any?] = [guardMetric, guardDirection, stages, guardGoal, minStageSeconds, minClientsPerArm, alpha,
                             tuningClients, regressionMargin, maxSeconds, noDataSeconds, onSrm, settleSeconds]
        return given.contains { $0 != nil }
    }

    /// Inline JSON starts with `{`; anything else names a file.
    static func text(of source: String) throws -> String {
        if source.trimmingCharacters(in: .whitespacesAndNewlines).hasPrefix("{") { return source }
        guard let data = FileManager.default.contents(atPath: source) else {
            throw ValidationError("--guard: cannot read '\(source)' (give a JSON object or a readable file)")
        }
        return String(decoding: data, as: UTF8.self)
    }

    private static func check(_ body: () throws(GuardPlanError) -> Void) throws {
        do throws(GuardPlanError) { try body() } catch { throw ValidationError("--guard: \(error.field): \(error.message)") }
    }
}

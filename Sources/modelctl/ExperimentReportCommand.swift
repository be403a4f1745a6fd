import ArgumentParser
import CivilTime
import Foundation
import GuardRuntime
import Guardrails

/// `modelctl experiment report ID --format html --out F` (SPEC §11.5): the guard's recorded
/// history as one self-contained page. The document comes as for `experiment status`; drawing it
/// is `GuardReport.html()` (pure, in Guardrails).
struct ExperimentReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report", abstract: "Write a guarded release's arm means and Δ̂ with its bound over time as an HTML page.",
        discussion: "The points are the recorded decisions (the last 20) and the last evaluation: the evaluator records "
            + "decisions, not every evaluation. --data-dir/--models-dir read the evaluator's files as for `experiment status`.")

    @OptionGroup var global: GlobalOptions
    @Argument(help: "Release UUID.") var id: String
    @OptionGroup var source: GuardDocumentSource
    @Option(help: "Report format: html.") var format = "html"
    @Option(help: "Write the report to FILE instead of stdout.") var out: String?

    func validate() throws {
        try AdminValidation.releaseID(id)
        guard format == "html" else { throw ValidationError("--format must be html, not '\(format)'") }
    }

    func run() throws {
        try failing {
            let html = try GuardStatusDocument.Content(document: try source.document(id: id, global: global)).report().html()
            guard let out else { return printOutput(html) }
            do { try html.write(toFile: out, atomically: true, encoding: .utf8) } catch {
                throw CLIFailure("cannot write \(out): \(error.localizedDescription)")
            }
        }
    }
}

extension GuardStatusDocument.Content {
    /// The decisions (a record whose time does not parse cannot be placed, and is left out) and, once
    /// the evaluator has run, the last evaluation (`evaluated_at`); `GuardReport` orders them by time.
    func report() -> GuardReport {
        func arm(_ arms: [String: Arm]?, _ name: String) -> GuardReport.Arm {
            GuardReport.Arm(clients: arms?[name]?.clients ?? 0, mean: arms?[name]?.mean)
        }
        var points = decisions.compactMap { d in
            RFC3339.parse(d.ts).map { at in GuardReport.Point(at: at, time: d.ts, rule: d.rule, stage: d.stage, nextStage: d.nextStage,
                              treatment: arm(d.arms, "treatment"), control: arm(d.arms, "control"), delta: d.delta, bound: d.bound) }
        }
        if let evaluatedAt, let at = RFC3339.parse(evaluatedAt) {
            points.append(GuardReport.Point(at: at, time: evaluatedAt, rule: nil, stage: stage, nextStage: nil,
                                            treatment: arm(arms, "treatment"), control: arm(arms, "control"), delta: delta, bound: bound))
        }
        return GuardReport(release: release, status: status, alpha: alpha, tuningClients: tuningClients, points: points)
    }
}

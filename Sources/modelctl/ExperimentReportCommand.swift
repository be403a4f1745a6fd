import ArgumentParser
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
            let document = try source.document(id: id, global: global)
            // A document missing a §11.5 key fails here naming it (exit 1), as `experiment status` does.
            _ = try GuardStatusDocument.Content(document: document)
            guard let report = GuardReport(statusDocument: document, id: id) else {
                throw CLIFailure("unexpected guard status document: \(String(decoding: document.prefix(200), as: UTF8.self))")
            }
            let html = report.html()
            guard let out else { return printOutput(html) }
            do { try html.write(toFile: out, atomically: true, encoding: .utf8) } catch {
                throw CLIFailure("cannot write \(out): \(error.localizedDescription)")
            }
        }
    }
}

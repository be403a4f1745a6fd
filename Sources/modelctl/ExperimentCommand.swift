import ArgumentParser
import CivilTime
import Foundation
import GuardRuntime

/// `modelctl experiment …` (SPEC §11.5): the operator's view of a guarded rollout.
struct ExperimentCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "experiment", abstract: "Follow guarded rollouts, or simulate one.",
        subcommands: [ExperimentStatusCommand.self, ExperimentReportCommand.self, ExperimentSimulateCommand.self])
}

/// `modelctl experiment status ID [--json]`: through the server (`GET /admin/models/ID/guard`) or,
/// with `--data-dir`, from the files the evaluator writes — the same document either way.
struct ExperimentStatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Show a guarded release's arms, Δ̂ and its bound, stage, status and last decisions.",
        discussion: "With --data-dir the figures come from DIR/guard-state/ and DIR/guard-decisions.jsonl and the "
            + "guard's status and stage from the catalog in --models-dir; no server is needed.")

    @OptionGroup var global: GlobalOptions
    @Argument(help: "Release UUID.") var id: String
    @OptionGroup var source: GuardDocumentSource

    func validate() throws { try AdminValidation.releaseID(id) }

    func run() throws {
        try failing {
            let body = try source.document(id: id, global: global)
            // Checked in both forms: a document missing a §11.5 key fails here, not later in a script.
            let status = try GuardStatusDocument.Content(document: body)
            if global.json { return ReleaseOutput(json: true).printJSON(body) }
            print(status.text(now: Int64(Date().timeIntervalSince1970 * 1000)))
        }
    }
}

import ArgumentParser
import CivilTime
import Foundation
import ModelCatalog
import ModeldCore

/// `modelctl experiment …` (SPEC §11.5): the operator's view of a guarded rollout.
struct ExperimentCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "experiment", abstract: "Follow guarded rollouts.",
        subcommands: [ExperimentStatusCommand.self])
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
    @Option(help: "Read the evaluator's files in this data directory instead of asking the server.") var dataDir: String?
    @Option(help: "With --data-dir: the models directory holding catalog.json (default: models_dir of ./\(ShippedConfig.path), else models).") var modelsDir: String?

    func validate() throws {
        try AdminValidation.releaseID(id)
        if modelsDir != nil, dataDir == nil { throw ValidationError("--models-dir needs --data-dir") }
    }

    func run() throws {
        try failing {
            let body: [UInt8]
            if let dataDir {
                body = try offline(dataDir: dataDir, modelsDir: modelsDir ?? ShippedConfig.load()?.modelsDir ?? "models")
            } else {
                body = try online()
            }
            let output = ReleaseOutput(json: global.json)
            if global.json { return output.printJSON(body) }
            print(try GuardStatusView(body).text(now: Int64(Date().timeIntervalSince1970 * 1000)))
        }
    }

    private func online() throws(CLIFailure) -> [UInt8] {
        try global.adminAPI().client.send(HTTPClientRequest(path: "/admin/models/\(id)/guard")).expect(200).body
    }

    private func offline(dataDir: String, modelsDir: String) throws(CLIFailure) -> [UInt8] {
        for (flag, dir) in [("--data-dir", dataDir), ("--models-dir", modelsDir)] {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: dir, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw CLIFailure("\(flag) \(dir): no such directory")
            }
        }
        let catalog: Catalog
        do throws(CatalogError) { catalog = try CatalogStore(directory: modelsDir, publicBaseURL: "").load() } catch {
            throw CLIFailure("\(modelsDir): \(error)")
        }
        do throws(GuardStatusDocument.Failure) {
            return try GuardStatusDocument.json(id: id, in: catalog, dataDir: dataDir)
        } catch {
            throw CLIFailure(error.message)
        }
    }
}

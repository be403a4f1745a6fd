import ArgumentParser
import Foundation
import GuardRuntime
import ModelCatalog

/// Where `modelctl experiment status/report` get the §11.5 guard document: the server (`GET
/// /admin/models/ID/guard`) or, with `--data-dir`, the evaluator's files — the same bytes either way.
struct GuardDocumentSource: ParsableArguments {
    @Option(help: "Read the evaluator's files in this data directory instead of asking the server.") var dataDir: String?
    @Option(help: "With --data-dir: the models directory holding catalog.json (default: models_dir of ./\(ShippedConfig.path), else models).") var modelsDir: String?

    func validate() throws {
        if modelsDir != nil, dataDir == nil { throw ValidationError("--models-dir needs --data-dir") }
    }

    func document(id: String, global: GlobalOptions) throws -> [UInt8] {
        if let dataDir {
            return try offline(id: id, dataDir: dataDir, modelsDir: modelsDir ?? ShippedConfig.load()?.modelsDir ?? "models")
        }
        return try global.adminAPI().client.send(HTTPClientRequest(path: "/admin/models/\(id)/guard")).expect(200).body
    }

    private func offline(id: String, dataDir: String, modelsDir: String) throws(CLIFailure) -> [UInt8] {
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

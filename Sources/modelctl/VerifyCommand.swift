import ArgumentParser
import ModelCatalog

/// `modelctl verify [--models-dir DIR]`: every file the catalog names must have its catalog size
/// and SHA-256 (SPEC §7.1). Exit 1 naming each bad file; files GC deleted are skipped.
struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify", abstract: "Re-hash every model file against the catalog.",
        discussion: "Prints one line per missing or mismatching file and exits 1 if there is any; "
            + "otherwise a summary line. Reads the directory directly: no server needed.")

    @Option(help: "The models directory.") var modelsDir = "models"
    @Flag(help: "Machine-readable JSON output.") var json = false

    func run() throws {
        try failing {
            let report = try VerifyCatalog(store: CatalogStore(directory: modelsDir, publicBaseURL: "")).run()
            if json {
                print(report.json)
            } else {
                for problem in report.problems { print(problem.line) }
                if report.problems.isEmpty { print(report.summary) }
            }
            guard report.problems.isEmpty else {
                throw CLIFailure("\(report.problems.count) of \(report.checked) files in \(report.directory) do not match the catalog")
            }
        }
    }
}

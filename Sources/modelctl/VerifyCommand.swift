import ArgumentParser
import ModelCatalog

/// `modelctl verify [--models-dir DIR]`: every file the catalog names must have its catalog size
/// and SHA-256 (SPEC §7.1), and a chunk list that is the recorded one and describes it (SPEC
/// §14), and the snapshots of the current catalog version must be what it derives (SPEC §12.1
/// `snapshot_mismatch`). Exit 1 naming each bad file; files GC deleted are skipped.
/// With `--signatures`: the signed metadata instead (SPEC §12, `VerifySignatures`).
struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify", abstract: "Re-hash every model file and its chunk list against the catalog.",
        discussion: "Prints one line per missing or mismatching file and exits 1 if there is any; "
            + "otherwise a summary line. Also compares the snapshots details/<N>.json and "
            + "rules/<channel>/<N>.json of the current catalog version with what the catalog derives "
            + "(snapshot_mismatch; remedy `modelctl catalog bump`). Reads the directory directly: no server needed.")

    @Option(help: "The models directory.") var modelsDir = "models"
    @Flag(help: "Machine-readable JSON output.") var json = false
    @Flag(help: "Check signatures (pointer, snapshot, and /latest against a server) instead of files.") var signatures = false
    @Option(help: "With --signatures: a trusted .pub file (repeatable).") var publicKey: [String] = []
    @Option(help: "With --signatures: check this server instead of --models-dir.") var server: String?
    @Option(help: "With --signatures --server: check /latest for this SDK version only (default: every key of the snapshot).") var sdk: String?

    func validate() throws {
        if signatures {
            if publicKey.isEmpty { throw ValidationError("--signatures needs at least one --public-key FILE") }
            if json { throw ValidationError("--json is not supported with --signatures (one line per check)") }
            if let sdk { _ = try AdminValidation.sdkVersion(sdk, option: "--sdk") }
        } else if !publicKey.isEmpty || server != nil || sdk != nil {
            throw ValidationError("--public-key, --server and --sdk need --signatures")
        }
    }

    func run() throws {
        try failing {
            if signatures { return try verifySignatures() }
            let report = try VerifyCatalog(store: CatalogStore(directory: modelsDir, publicBaseURL: "")).run()
            if json {
                print(report.json)
            } else {
                for problem in report.problems { print(problem.line) }
                if report.problems.isEmpty { print(report.summary) }
            }
            guard report.problems.isEmpty else {
                throw CLIFailure(report.failure)
            }
        }
    }

    private func verifySignatures() throws(CLIFailure) {
        var check = try VerifySignatures(publicKeyFiles: publicKey)
        if let server { try check.checkServer(HTTPClient(baseURL: server, token: nil), sdk: sdk) } else { try check.checkDirectory(modelsDir) }
        guard check.failures.isEmpty else { throw CLIFailure("\(check.failures.count) signature check(s) failed") }
    }
}

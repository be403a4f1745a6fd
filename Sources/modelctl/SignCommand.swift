import ArgumentParser
import Foundation
import ModelCatalog
import ModeldSigning

/// `modelctl sign refresh --models-dir DIR [--key FILE]` (SPEC §12): re-signs the static pointer
/// (and writes the current snapshot when missing) — cron's job when no server runs.
struct SignCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign", abstract: "Sign the static metadata of a models directory.",
        subcommands: [SignRefresh.self])
}

struct SignRefresh: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "refresh", abstract: "Write details/<catalog_version>.json when missing and a freshly signed latest_model_details.sig.json.",
        discussion: "Keys: --key FILE (repeatable, at most 2), else `signing.keys` of ./config/modeld.json.")

    @Option(help: "The models directory.") var modelsDir: String
    @Option(help: "Private key file (mode 0600).") var key: [String] = []
    @Flag(help: "Machine-readable JSON output (the pointer written).") var json = false

    func run() throws {
        try failing {
            guard let (signer, grace) = try SigningConfig.signer(keyFiles: key) else {
                throw CLIFailure("no signing key: pass --key FILE or configure signing.keys in \(ShippedConfig.path)", exitCode: 2)
            }
            guard FileManager.default.fileExists(atPath: modelsDir) else { throw CLIFailure("models directory \(modelsDir) does not exist") }
            // The base URL only matters for a directory that never saw a publish (no derived
            // file yet): the catalog's recorded base wins, as for every writer.
            let store = CatalogStore(directory: modelsDir, publicBaseURL: OfflineOptions.defaultPublicBaseURL, isFallbackBaseURL: true,
                                     signer: signer, graceDays: grace)
            let pointer: SignedPointer
            do throws(CatalogError) {
                let now = Int64(Date().timeIntervalSince1970)
                pointer = try SignedDetails(store: store, signer: signer, graceDays: grace).refresh(now: now)
                try store.rules.refresh(store: store, now: now, resign: true)   // the rules pointers too (SPEC §9.2)
            } catch {
                throw CLIFailure(error.message)
            }
            if json { print(String(decoding: pointer.encoded().dropLast(), as: UTF8.self)) } else {
                print("signed \(SignedPointer.fileName): catalog \(pointer.catalog), \(pointer.file), expires \(pointer.expires), keyids \(pointer.signatures.map(\.keyID).joined(separator: ", "))")
            }
        }
    }
}

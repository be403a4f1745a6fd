import ArgumentParser
import Foundation
import ModelCatalog
import ModeldSigning

/// `modelctl sign refresh --models-dir DIR [--key FILE]` (SPEC §12): re-signs the static pointers
/// (details and rules, writing the current snapshots when missing) — cron's job when no server
/// runs. It signs only bytes derived from the catalog (SPEC §12.1): a snapshot that holds other
/// bytes is named on stderr, its pointer kept, and the run fails (exit 1).
struct SignCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign", abstract: "Sign the static metadata of a models directory.",
        subcommands: [SignRefresh.self])
}

struct SignRefresh: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "refresh", abstract: "Write details/<catalog_version>.json when missing and a freshly signed latest_model_details.sig.json.",
        discussion: "Keys: --key FILE (repeatable, at most 2), else `signing.keys` of ./config/modeld.json. "
            + "A snapshot holding other bytes than the catalog derives is not signed: exit 1 naming it; "
            + "`modelctl catalog bump` derives fresh ones.")

    @Option(help: "The models directory.") var modelsDir: String
    @Option(help: "Private key file (mode 0600).") var key: [String] = []
    @Flag(help: "Machine-readable JSON output (the pointer written).") var json = false

    func run() throws {
        try failing {
            guard let signing = try SigningConfig.signer(keyFiles: key) else {
                throw CLIFailure("no signing key: pass --key FILE or configure signing.keys in \(ShippedConfig.path)", exitCode: 2)
            }
            guard FileManager.default.fileExists(atPath: modelsDir) else { throw CLIFailure("models directory \(modelsDir) does not exist") }
            // The base URL only matters for a directory that never saw a publish: the catalog's
            // recorded base wins, as for every writer.
            let store = SigningConfig.store(modelsDir, signing: signing)
            let details: SignedDetails.Outcome
            let rules: RulesFiles.Written
            do throws(CatalogError) {
                let now = Int64(Date().timeIntervalSince1970)
                details = try SignedDetails(store: store, signer: signing.signer, graceDays: signing.graceDays).refresh(now: now)
                rules = try store.rules.refresh(store: store, now: now, resign: true)   // the rules pointers too (SPEC §9.2)
            } catch {
                throw CLIFailure(error.message)
            }
            if case .signed(let pointer) = details {
                if json { print(String(decoding: pointer.encoded().dropLast(), as: UTF8.self)) } else {
                    print("signed \(SignedPointer.fileName): catalog \(pointer.catalog), \(pointer.file), expires \(pointer.expires), keyids \(pointer.signatures.map(\.keyID).joined(separator: ", "))")
                }
            }
            // Each refusal is already on stderr (SigningConfig.reportRefusal).
            var refused = rules.refused.count
            if case .refused = details { refused += 1 }
            guard refused == 0 else {
                throw CLIFailure("\(refused) snapshot(s) not signed: they hold other bytes than the catalog derives; run `\(SnapshotMismatch.remedy) --models-dir \(modelsDir)`")
            }
        }
    }
}

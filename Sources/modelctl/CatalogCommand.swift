import ArgumentParser
import Foundation
import JSONSupport
import ModelCatalog

/// `modelctl catalog …`: properties of the catalog itself, changed offline under the publish lock.
struct CatalogCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "catalog", abstract: "Change properties of the catalog itself.",
        subcommands: [CatalogSetBaseURLCommand.self, CatalogBumpCommand.self])
}

/// `modelctl catalog set-base-url URL [--models-dir DIR]`: the one deliberate way to change the
/// catalog's base URL (SPEC §9.1), which every writer of latest_model_details.json uses. Under
/// the publish lock: records URL, rewrites the derived file, bumps catalog_version; running
/// servers serve the new URLs within 2 s.
struct CatalogSetBaseURLCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set-base-url", abstract: "Set the base URL of every url the catalog's files and answers carry.",
        discussion: "Writers whose configured public_base_url differs from the catalog's refuse to write "
            + "(409 base_url_mismatch) until their configuration or the catalog changes. Setting the URL the "
            + "catalog already has changes nothing.")

    @Argument(help: "The new base URL, e.g. https://cdn.example.com (as public_base_url in config/modeld.json).")
    var url: String
    @Option(help: "The models directory.") var modelsDir = "models"
    @Flag(help: "Machine-readable JSON output.") var json = false

    func validate() throws { _ = try ShippedConfig.validatedBaseURL(url, flag: "URL") }

    func run() throws {
        try failing {
            let base = try ShippedConfig.validatedBaseURL(url, flag: "URL")
            // Keys are loaded first: one modeld would refuse stops the command before anything changes.
            let signing = try SigningConfig.signer(keyFiles: [])
            // The writer's own base is irrelevant here: set-base-url overrides whatever is recorded.
            let store = CatalogStore(directory: modelsDir, publicBaseURL: base, signer: signing?.signer,
                                     graceDays: signing?.graceDays ?? SigningConfig.graceDays(), onRefused: SigningConfig.reportRefusal)
            let change: Versioned<String?>
            do throws(CatalogError) {
                change = try store.setPublicBaseURL(base)
            } catch {
                throw CLIFailure(error)
            }
            let changed = change.value != base
            // Every url changed: the signed pointer must name the new snapshot, not the old URLs.
            if changed { SigningConfig.refresh(store, with: signing, after: "base URL set") }
            if json {
                var w = JSONWriter()
                w.beginObject()
                w.field("public_base_url", base)
                w.key("previous")
                if let previous = change.value { w.string(previous) } else { w.null() }
                w.key("changed")
                w.bool(changed)
                w.field("catalog_version", change.catalogVersion)
                w.endObject()
                print(w.string)
            } else if changed {
                print("public_base_url: \(base) (was \(change.value ?? "not recorded")); catalog_version \(change.catalogVersion)")
            } else {
                print("public_base_url is already \(base); nothing changed (catalog_version \(change.catalogVersion))")
            }
        }
    }
}

/// `modelctl catalog bump [--models-dir DIR]` (SPEC §12.1): catalog version N+1 with nothing
/// else changed, under the publish lock — the remedy when a snapshot for N holds other bytes than
/// the catalog derives, which no writer signs. Every writer then derives fresh snapshots for
/// N+1: this one at once (with keys, the signed pointers too), running servers within 2 s.
struct CatalogBumpCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bump", abstract: "Write the next catalog version with nothing else changed, so fresh snapshots are derived.",
        discussion: "The remedy `modelctl verify` names for snapshot_mismatch. Prints the new catalog_version.")

    @Option(help: "The models directory.") var modelsDir = "models"
    @Flag(help: "Machine-readable JSON output.") var json = false

    func run() throws {
        try failing {
            guard FileManager.default.fileExists(atPath: modelsDir + "/catalog.json") else { throw CLIFailure("no catalog in \(modelsDir)") }
            // Keys are loaded first: one modeld would refuse stops the command before anything changes.
            let signing = try SigningConfig.signer(keyFiles: [])
            let store = SigningConfig.store(modelsDir, signing: signing)
            let version: Int64
            do throws(CatalogError) { version = try store.bump() } catch { throw CLIFailure(error) }
            SigningConfig.refresh(store, with: signing, after: "catalog bumped")
            if json {
                var w = JSONWriter()
                w.beginObject()
                w.field("catalog_version", version)
                w.endObject()
                print(w.string)
            } else {
                print("catalog_version \(version)")
            }
        }
    }
}

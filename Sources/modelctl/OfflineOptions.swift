import ArgumentParser
import Foundation
import ModelCatalog
import ModeldSigning

/// `publish`'s options for publishing straight into a models directory (no server).
struct OfflineOptions: ParsableArguments {
    /// The shipped config other offline code reads (e.g. its `signing`).
    static let configFile = ShippedConfig.path
    static let defaultPublicBaseURL = "http://127.0.0.1:8080"

    @Option(help: "Publish into this models directory without a server.")
    var modelsDir: String?
    @Option(help: ArgumentHelp(
        "With --models-dir: this publisher's base URL; it must be the catalog's own once recorded.",
        discussion: "Default: public_base_url from ./\(ShippedConfig.path); with neither, the catalog's base URL "
            + "(or \(defaultPublicBaseURL) for a catalog that has none yet). A different base is refused: "
            + "change it deliberately with `modelctl catalog set-base-url`."))
    var publicBaseUrl: String?
    @Option(help: ArgumentHelp(
        "With --models-dir: instance id naming the temp upload in DIR/.tmp (default modelctl-<pid>).",
        discussion: "A server removes only its own instance's temps at start-up; a killed modelctl's stay until removed by hand."))
    var instance: String?

    func validate() throws {
        if modelsDir == nil {
            if publicBaseUrl != nil { throw ValidationError("--public-base-url needs --models-dir") }
            if instance != nil { throw ValidationError("--instance needs --models-dir") }
        }
        if let publicBaseUrl { _ = try ShippedConfig.validatedBaseURL(publicBaseUrl, flag: "--public-base-url") }
        // Mirrors the catalog's rule for temp names (UploadWriter): a bad id is a usage error here.
        if let instance, instance.isEmpty || instance.utf8.count > 128 || instance.hasPrefix(".")
            || !instance.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "/") }) {
            throw ValidationError("--instance '\(instance)' must be 1-128 printable ASCII characters without / or spaces, not starting with .")
        }
    }

    /// The offline publisher when `--models-dir` is given, else nil (publish through the server).
    func publisher() throws(CLIFailure) -> OfflinePublisher? {
        guard let modelsDir else { return nil }
        let signing = try SigningConfig.signer(keyFiles: [])
        return OfflinePublisher(store: try store(modelsDir, signing: signing), instance: instance ?? "modelctl-\(getpid())",
                                signing: signing)
    }

    /// The store with this publisher's base: `--public-base-url`, else the shipped config's
    /// `public_base_url` (both configured: they must match the catalog's), else a fallback that
    /// defers to the catalog's recorded base (SPEC §9.1: the base is the catalog's).
    /// The rules pointers every change writes (SPEC §9.2) are signed with `signing`'s keys.
    private func store(_ modelsDir: String, signing: (signer: Signer, graceDays: Int)?) throws(CLIFailure) -> CatalogStore {
        let base: String?
        if let publicBaseUrl {
            do { base = try ShippedConfig.validatedBaseURL(publicBaseUrl, flag: "--public-base-url") } catch { throw CLIFailure("\(error)", exitCode: 2) }
        } else {
            base = try ShippedConfig.load()?.publicBaseURL
        }
        return SigningConfig.store(modelsDir, publicBaseURL: base, signing: signing)
    }
}

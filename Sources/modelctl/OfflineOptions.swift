import ArgumentParser
import Foundation
import ModelCatalog

/// `publish`'s options for publishing straight into a models directory (no server).
struct OfflineOptions: ParsableArguments {
    static let configFile = "config/modeld.json"
    static let defaultPublicBaseURL = "http://127.0.0.1:8080"

    @Option(help: "Publish into this models directory without a server.")
    var modelsDir: String?
    @Option(help: ArgumentHelp(
        "With --models-dir: base URL for the printed url and latest_model_details.json.",
        discussion: "Default: public_base_url from ./\(configFile) when present, else \(defaultPublicBaseURL)."))
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
        if let publicBaseUrl { try Self.validateBaseURL(publicBaseUrl, source: "--public-base-url") }
        // Mirrors the catalog's rule for temp names (UploadWriter): a bad id is a usage error here.
        if let instance, instance.isEmpty || instance.utf8.count > 128 || instance.hasPrefix(".")
            || !instance.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "/") }) {
            throw ValidationError("--instance '\(instance)' must be 1-128 printable ASCII characters without / or spaces, not starting with .")
        }
    }

    /// The offline publisher when `--models-dir` is given, else nil (publish through the server).
    func publisher() throws(CLIFailure) -> OfflinePublisher? {
        guard let modelsDir else { return nil }
        let store = CatalogStore(directory: modelsDir, publicBaseURL: try resolvedPublicBaseURL())
        return OfflinePublisher(store: store, instance: instance ?? "modelctl-\(getpid())",
                                signing: try SigningConfig.signer(keyFiles: []))
    }

    /// `--public-base-url`, else the shipped config's `public_base_url` (relative to the current
    /// directory, like the token file), else the default listen address. A config that cannot be
    /// read is an error rather than a silent default: the URL lands in latest_model_details.json.
    func resolvedPublicBaseURL() throws(CLIFailure) -> String {
        if let publicBaseUrl { return publicBaseUrl }
        guard FileManager.default.fileExists(atPath: Self.configFile) else { return Self.defaultPublicBaseURL }
        struct Config: Decodable { let public_base_url: String? }
        guard let data = FileManager.default.contents(atPath: Self.configFile),
              let config = try? JSONDecoder().decode(Config.self, from: data) else {
            throw CLIFailure("cannot read public_base_url from \(Self.configFile); pass --public-base-url")
        }
        guard let url = config.public_base_url else { return Self.defaultPublicBaseURL }
        do { try Self.validateBaseURL(url, source: "public_base_url in \(Self.configFile)") } catch {
            throw CLIFailure("\(error)")
        }
        return url
    }

    private static func validateBaseURL(_ url: String, source: String) throws {
        guard url.hasPrefix("http://") || url.hasPrefix("https://"), !url.contains(where: { $0.isWhitespace }) else {
            throw ValidationError("\(source) must be an http:// or https:// URL, got '\(url)'")
        }
    }
}

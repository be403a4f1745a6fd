import ArgumentParser
import ModelCatalog

/// `publish`'s SPEC §3.2 flags: the base an adapter applies on, and what a device knows before
/// a download. Checked with the catalog's own rules before a byte is sent.
struct AdapterOptions: ParsableArguments {
    @Option(help: "Channel of the base model this adapter applies on (with --base-sha256).") var baseChannel: String?
    @Option(help: "SHA-256 of the base model file (64 lowercase hex; with --base-channel).") var baseSha256: String?
    @Option(help: "Take --base-channel and --base-sha256 from this release (its channel and file).") var baseRelease: String?
    @Option(help: "Name an app shows before the download, at most 100 characters.") var displayName: String?
    @Option(help: "URL of the licence text.") var licenseUrl: String?
    @Option(help: "SHA-256 of the licence text (so an app can record acceptance of exactly that text).") var licenseSha256: String?
    @Option(help: "SPDX licence identifier, e.g. Apache-2.0.") var licenseSpdx: String?
    @Option(help: "RAM in MB the model needs (integer 0-10000000).") var minRamMb: Int?

    func validate() throws {
        if baseRelease != nil, baseChannel != nil || baseSha256 != nil {
            throw ValidationError("--base-release cannot be combined with --base-channel or --base-sha256")
        }
        if let baseRelease { try AdminValidation.releaseID(baseRelease, option: "--base-release") }
        do throws(CatalogError) {
            _ = try PublishRequest.base(channel: baseChannel, sha256: baseSha256)
            _ = try ReleaseInfo(displayName: displayName,
                                license: try PublishRequest.license(spdx: licenseSpdx, url: licenseUrl, sha256: licenseSha256),
                                minRAMMB: minRamMb)
        } catch {
            let flag = "--" + String((error.parameter ?? "").map { $0 == "_" ? "-" : $0 })
            throw ValidationError("\(flag): \(error.message)")
        }
    }

    /// The base as given, or resolved from `--base-release` by `lookUp` (channel, sha256).
    func base(lookUp: (String) throws(CLIFailure) -> (channel: String, sha256: String)) throws(CLIFailure) -> (channel: String, sha256: String)? {
        if let baseRelease { return try lookUp(baseRelease) }
        guard let baseChannel, let baseSha256 else { return nil }
        return (baseChannel, baseSha256)
    }
}

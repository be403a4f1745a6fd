/// `modelctl publish`'s validated arguments: the file and the release fields of SPEC §3 (the
/// catalog's `PublishRequest` is made from them, `catalogRequest()`). Nil fields take the
/// server's (or catalog's) defaults.
struct PublishArguments {
    let file: String
    let ext: String
    let sdkMin: String
    let sdkMax: String?
    let channel: String?
    let rolloutPercent: Int?
    let label: String?
    let contentType: String?
    let id: String?
    /// The guard's JSON as the operator gave it (SPEC §11.1).
    let guardJSON: String?
    /// SPEC §3.2 (nil = unset): the base, resolved from `--base-release` when given.
    var base: (channel: String, sha256: String)?
    var displayName: String?
    var licenseSPDX: String?
    var licenseURL: String?
    var licenseSHA256: String?
    var minRAMMB: Int?
}

/// Where a publish lands. `AdminAPI` streams the file to a server (`POST /admin/models`);
/// `OfflinePublisher` writes into a models directory through ModelCatalog (`--models-dir`).
protocol Publisher {
    /// Publishes and returns the new release as JSON, as the server's 201 body (with `url`).
    func publish(_ request: PublishArguments) throws(CLIFailure) -> [UInt8]
    /// Release `id`'s channel and SHA-256, for `--base-release` (404 → failure naming it).
    func channelAndSHA256(ofRelease id: String) throws(CLIFailure) -> (channel: String, sha256: String)
}

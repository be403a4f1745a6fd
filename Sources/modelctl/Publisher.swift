/// A validated publish: the file and the release fields of SPEC §3. Nil fields take the
/// server's (or catalog's) defaults.
struct PublishRequest {
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
}

/// Where a publish lands. `AdminAPI` streams the file to a server (`POST /admin/models`);
/// `OfflinePublisher` writes into a models directory through ModelCatalog (`--models-dir`).
protocol Publisher {
    /// Publishes and returns the new release as JSON, as the server's 201 body (with `url`).
    func publish(_ request: PublishRequest) throws(CLIFailure) -> [UInt8]
}

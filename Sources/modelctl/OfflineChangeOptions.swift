import ArgumentParser
import GuardRuntime
import ModelCatalog

/// `rollout/pause/resume/retire --models-dir DIR [--data-dir DIR]`: the change applied straight
/// to a models directory, by the server's own rule (`ManualChange`): under the publish lock, and
/// a guard it stops gets its one `manual_override` record in DIR's data directory (SPEC §11.4).
struct OfflineChangeOptions: ParsableArguments {
    @Option(help: "Change the release in this models directory without a server.")
    var modelsDir: String?
    @Option(help: "With --models-dir: the data directory whose guard-decisions.jsonl records a stopped guard (default: data_dir of ./\(ShippedConfig.path), else data).")
    var dataDir: String?

    func validate() throws {
        if dataDir != nil, modelsDir == nil { throw ValidationError("--data-dir needs --models-dir") }
    }

    /// Applies `patch` offline with --models-dir, else through the server's `online` call; prints the release.
    func run(_ id: String, _ patch: ReleasePatch, global: GlobalOptions, online: (AdminAPI) throws -> [UInt8]) throws {
        guard let modelsDir else { return try global.printRelease(online) }
        // Keys are loaded first: one modeld would refuse stops the command before anything changes.
        let signing = try SigningConfig.signer(keyFiles: [])
        let store = SigningConfig.store(modelsDir, signing: signing)
        let records = GuardRecords(dataDir: try dataDir ?? ShippedConfig.load()?.dataDir ?? "data")
        let release: Versioned<Release>
        do throws(CatalogError) {
            release = try ManualChange.apply(patch, to: id, store: store, records: records)
        } catch {
            throw CLIFailure(error)
        }
        SigningConfig.refresh(store, with: signing, after: "changed")
        try ReleaseOutput(json: global.json).printRelease(release.adminJSON())
    }
}

import Foundation
import Guardrails
import ModelCatalog
import ModeldSigning

/// `publish --models-dir DIR` (SPEC §7.1, §9): the server's own publish path, without a server.
/// `CatalogStore.publishFile` streams the file through UploadWriter into
/// `DIR/.tmp/<instance>-<16 hex>`, fsyncs, then under the publish lock re-reads the catalog,
/// renames to `<id>.<ext>` and writes catalog.json and latest_model_details.json atomically.
/// Servers sharing DIR pick the release up through their catalog watcher.
struct OfflinePublisher: Publisher {
    let store: CatalogStore
    /// Names the temp upload; a server's start-up cleanup removes only its own instance's temps.
    let instance: String
    /// The keys of `signing` in ./config/modeld.json, if any: then the signed snapshot and
    /// pointer follow the publish at once (SPEC §12: modelctl writes them when it has keys).
    var signing: (signer: Signer, graceDays: Int)?

    func publish(_ request: PublishArguments) throws(CLIFailure) -> [UInt8] {
        // Opened first only for the online command's exact "cannot read FILE" / "not a regular
        // file" failures, before anything is written into DIR.
        _ = try PublishFileSource(path: request.file)
        do throws(CatalogError) {
            // Fail fast before copying a possibly huge import; the check that counts is the one
            // under the lock.
            let catalog = try store.load()
            let catalogRequest = try request.catalogRequest()
            try catalogRequest.precheck(against: catalog)
            try store.checkBaseURL(catalog)
            let release = try store.publishFile(path: request.file, catalogRequest, instance: instance)
            SigningConfig.refresh(store, with: signing, after: "published")
            return release.adminJSON()
        } catch {
            throw CLIFailure(error)
        }
    }

    func channelAndSHA256(ofRelease id: String) throws(CLIFailure) -> (channel: String, sha256: String) {
        do throws(CatalogError) {
            guard let r = try store.load().release(id: id) else { throw CatalogError(.notFound, parameter: "id", "no release with id \(id)") }
            return (r.channel, r.sha256)
        } catch {
            throw CLIFailure(error)
        }
    }
}

extension PublishArguments {
    /// The catalog's request, validated again by the catalog itself (the same rules the server applies).
    func catalogRequest() throws(CatalogError) -> PublishRequest {
        try PublishRequest(
            sdkMin: sdkMin, sdkMax: sdkMax, channel: channel, rolloutPercent: rolloutPercent,
            label: label, ext: ext, contentType: contentType, id: id,
            guardPlan: try guardJSON.map { (text) throws(CatalogError) in try GuardPlan.operatorInput(json: text) },
            base: try PublishRequest.base(channel: base?.channel, sha256: base?.sha256),
            info: try ReleaseInfo(displayName: displayName,
                                  license: try PublishRequest.license(spdx: licenseSPDX, url: licenseURL, sha256: licenseSHA256),
                                  minRAMMB: minRAMMB))
    }
}

extension CLIFailure {
    /// Worded as the server's answer would be (`409 id_in_use: id: release id … is already in
    /// the catalog`), so scripts see the same failure online and offline.
    init(_ error: CatalogError) {
        self.init("\(error.httpStatus) \(error.description)")
    }
}

import ModeldSigning

/// The rules files of a models directory (SPEC §9.2): per channel the immutable snapshot
/// `rules/<channel>/<N>.json` and the pointer `rules/<channel>.sig.json`. Every publisher writes
/// them under the publish lock as part of each catalog change; a channel whose rules did not
/// change keeps both files (its snapshot, its pointer and so its ETag), so a CDN and every
/// device revalidate it for free.
public struct RulesFiles: Sendable {
    /// Pointers written without signing keys still carry an expiry (clients that trust no key
    /// ignore it): §12's default `ttl_seconds`.
    public static let unsignedTTLSeconds: Int64 = 604_800

    public let modelsDirectory: String
    /// nil: pointers are written with `"signatures":[]`.
    public let signer: Signer?
    /// Superseded snapshots are kept this long (`retired_grace_days`).
    public let graceDays: Int

    public init(modelsDirectory: String, signer: Signer?, graceDays: Int) {
        self.modelsDirectory = modelsDirectory
        self.signer = signer
        self.graceDays = graceDays
    }

    public var directory: String { modelsDirectory + "/" + SignedPointer.rulesDirectory }

    public func pointerPath(channel: String) -> String {
        modelsDirectory + "/" + SignedPointer.rulesPointerPath(channel: channel)
    }

    public func snapshotPath(channel: String, catalog: Int64) -> String {
        modelsDirectory + "/" + SignedPointer.rulesSnapshotPath(channel: channel, catalog: catalog)
    }

    /// Takes the publish lock and brings every channel's files up to date with the catalog on
    /// disk (a running server after an offline change, and every `resign_seconds` with
    /// `resign`). Returns the channels whose pointer it wrote.
    @discardableResult
    public func refresh(store: CatalogStore, now: Int64, resign: Bool) throws(CatalogError) -> [String] {
        try FileIO.makeDirectory(store.directory)
        return try PublishLock.withLock(path: store.lockPath) { () throws(CatalogError) -> [String] in
            let catalog = try store.load()
            return try write(catalog, publicBaseURL: store.baseURL(of: catalog), now: now, resign: resign)
        }
    }

    /// Under the publish lock: for each channel whose rules differ from the snapshot its pointer
    /// names (or that has none), writes the snapshot at the catalog's version, then its pointer;
    /// with `resign`, also re-signs the pointers of unchanged channels. Prunes old snapshots.
    @discardableResult
    public func write(_ catalog: Catalog, publicBaseURL: String, now: Int64, resign: Bool) throws(CatalogError) -> [String] {
        var written: [String] = []
        for channel in catalog.channels {
            var version = catalog.catalogVersion
            var body = catalog.rulesJSON(channel: channel, catalogVersion: version, publicBaseURL: publicBaseURL)
            let current = currentPointer(channel: channel)
            if let current, let onDisk = try? FileIO.read(snapshotPath(channel: channel, catalog: current.catalog)),
               onDisk == catalog.rulesJSON(channel: channel, catalogVersion: current.catalog, publicBaseURL: publicBaseURL) {
                guard resign else { continue }   // unchanged: keep both files
                version = current.catalog
                body = onDisk
            } else {
                try FileIO.makeDirectory(directory)
                try FileIO.makeDirectory(directory + "/" + channel)
                let path = snapshotPath(channel: channel, catalog: version)
                // Immutable once written: a CDN may have cached it for a year.
                if let existing = try FileIO.read(path) { body = existing } else { try FileIO.atomicReplace(path, with: body) }
            }
            try FileIO.atomicReplace(pointerPath(channel: channel), with: pointer(channel: channel, catalog: version, body: body, now: now).encoded())
            written.append(channel)
            SnapshotRetention.prune(directory: directory + "/" + channel, current: version, graceDays: graceDays, now: now)
        }
        return written
    }

    /// The pointer of `channel` on disk, nil when absent or unreadable.
    public func currentPointer(channel: String) -> SignedPointer? {
        guard let bytes = try? FileIO.read(pointerPath(channel: channel)) else { return nil }
        return try? SignedPointer.decode(bytes)
    }

    private func pointer(channel: String, catalog: Int64, body: [UInt8], now: Int64) -> SignedPointer {
        guard let signer else {
            let params = SignatureParams(catalog: catalog, created: now, expires: now + Self.unsignedTTLSeconds)
            return SignedPointer(rulesOf: channel, params: params, body: body, signatures: [])
        }
        let stamp = signer.sign(kind: .rules, catalog: catalog, body: body, now: now)
        return SignedPointer(rulesOf: channel, params: stamp.params, body: body, signatures: stamp.signatures)
    }
}

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
    /// Told of every snapshot this writer refuses to sign (SPEC §12.1).
    let onRefused: (@Sendable (SnapshotMismatch) -> Void)?

    /// What one pass wrote: the channels whose pointer it wrote, and the snapshots it refused.
    public struct Written: Sendable, Equatable {
        public var channels: [String] = []
        public var refused: [SnapshotMismatch] = []
    }

    public init(modelsDirectory: String, signer: Signer?, graceDays: Int, onRefused: (@Sendable (SnapshotMismatch) -> Void)? = nil) {
        self.modelsDirectory = modelsDirectory
        self.signer = signer
        self.graceDays = graceDays
        self.onRefused = onRefused
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
    /// `resign`). Without `resign`, a catalog this store wrote itself is already up to date (its
    /// change wrote the rules under the same lock): nothing is read or compared.
    @discardableResult
    public func refresh(store: CatalogStore, now: Int64, resign: Bool) throws(CatalogError) -> Written {
        try FileIO.makeDirectory(store.directory)
        return try PublishLock.withLock(path: store.lockPath) { () throws(CatalogError) -> Written in
            if !resign && store.isOnDiskAsWritten { return Written() }
            let catalog = try store.load()
            return try write(catalog, publicBaseURL: store.baseURL(of: catalog), now: now, resign: resign)
        }
    }

    /// Under the publish lock: for each channel of `only` (nil: every channel) whose rules
    /// differ from the snapshot its pointer names (or that has none), writes the snapshot at the
    /// catalog's version, then its pointer; with `resign`, also re-signs the pointers of
    /// unchanged channels. Prunes old snapshots of the channels it wrote.
    /// Every body is derived from `catalog` (SPEC §12.1): a snapshot file for the version that
    /// holds other bytes is refused — reported, and the channel keeps its previous pointer.
    @discardableResult
    public func write(_ catalog: Catalog, publicBaseURL: String, now: Int64, resign: Bool, only: Set<String>? = nil) throws(CatalogError) -> Written {
        var written = Written()
        for (channel, releases) in catalog.releasesByChannel.sorted(by: { $0.key < $1.key }) where only?.contains(channel) ?? true {
            let derive = { (version: Int64) in
                Catalog.rulesJSON(channel: channel, releases: releases, catalogVersion: version, publicBaseURL: publicBaseURL)
            }
            var version = catalog.catalogVersion
            var body = derive(version)
            if let kept = unchanged(channel: channel, derive: derive) {
                guard resign else { continue }   // unchanged: keep both files
                (version, body) = kept
            } else {
                let path = snapshotPath(channel: channel, catalog: version)
                // Immutable once written (a CDN may have cached it for a year): never replaced,
                // and never signed unless it is the derivation.
                switch DerivedSnapshot.compare(file: SignedPointer.rulesSnapshotPath(channel: channel, catalog: version),
                                               catalog: version, derived: body, onDisk: try FileIO.read(path)) {
                case .mismatch(let refusal):
                    onRefused?(refusal)
                    written.refused.append(refusal)
                    continue
                case .same: break
                case .missing:
                    try FileIO.makeDirectory(directory + "/" + channel)
                    try FileIO.atomicReplace(path, with: body)
                }
            }
            try FileIO.atomicReplace(pointerPath(channel: channel), with: pointer(channel: channel, catalog: version, body: body, now: now).encoded())
            written.channels.append(channel)
            SnapshotRetention.prune(directory: directory + "/" + channel, current: version, graceDays: graceDays, now: now)
        }
        if !catalog.channels.isEmpty {
            try FileIO.makeDirectory(directory)
            try RulesIndexFile(files: self).write(catalog: catalog.catalogVersion, channels: catalog.channels, now: now, resign: resign)
        }
        return written
    }

    /// The version and bytes of `channel`'s current snapshot when the catalog still derives
    /// exactly those bytes for that version (its rules did not change since); nil otherwise.
    private func unchanged(channel: String, derive: (Int64) -> [UInt8]) -> (version: Int64, body: [UInt8])? {
        guard let current = currentPointer(channel: channel) else { return nil }
        let derived = derive(current.catalog)
        guard (try? FileIO.read(snapshotPath(channel: channel, catalog: current.catalog))) == derived else { return nil }
        return (current.catalog, derived)
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

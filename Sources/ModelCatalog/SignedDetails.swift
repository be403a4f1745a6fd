import ModeldSigning

/// The static signed metadata of SPEC §12 in a models directory: the immutable snapshot
/// `details/<catalog_version>.json` (the bytes of `latest_model_details.json` at that version)
/// and the short-lived pointer `latest_model_details.sig.json`. Written by whoever holds keys —
/// the server after a catalog change and every `resign_seconds`, `modelctl sign refresh`.
public struct SignedDetails: Sendable {
    public let store: CatalogStore
    public let signer: Signer
    /// Superseded snapshots are kept this long (SPEC §12: `retired_grace_days`), for clients
    /// and CDNs that still hold an older pointer.
    public let graceDays: Int

    public init(store: CatalogStore, signer: Signer, graceDays: Int) {
        self.store = store
        self.signer = signer
        self.graceDays = graceDays
    }

    public var pointerPath: String { store.directory + "/" + SignedPointer.fileName }
    public var snapshotDirectory: String { store.directory + "/" + SignedPointer.snapshotDirectory }

    public func snapshotPath(catalog: Int64) -> String { store.directory + "/" + SignedPointer.snapshotPath(catalog: catalog) }

    /// Under the publish lock (so catalog.json and the derived file are one version): writes the
    /// snapshot of the current version when missing, a freshly signed pointer, and prunes old
    /// snapshots. Returns the pointer written.
    @discardableResult
    public func refresh(now: Int64) throws(CatalogError) -> SignedPointer {
        try FileIO.makeDirectory(store.directory)
        return try PublishLock.withLock(path: store.lockPath) { () throws(CatalogError) -> SignedPointer in
            let catalog = try store.load()
            let version = catalog.catalogVersion
            let details: [UInt8]
            if let onDisk = try FileIO.read(store.latestDetailsPath) {
                details = onDisk
            } else {
                // A directory that never saw a publish: derive it now, as a publish would.
                details = catalog.latestDetailsJSON(publicBaseURL: store.baseURL(of: catalog))
                try FileIO.atomicReplace(store.latestDetailsPath, with: details)
            }
            try FileIO.makeDirectory(snapshotDirectory)
            let snapshot = snapshotPath(catalog: version)
            // Immutable once written: a CDN may have cached it for a year.
            let bytes: [UInt8]
            if let existing = try FileIO.read(snapshot) { bytes = existing } else {
                try FileIO.atomicReplace(snapshot, with: details)
                bytes = details
            }
            let pointer = SignedPointer(stamp: signer.sign(kind: .details, catalog: version, body: bytes, now: now))
            try FileIO.atomicReplace(pointerPath, with: pointer.encoded())
            SnapshotRetention.prune(directory: snapshotDirectory, current: version, graceDays: graceDays, now: now)
            return pointer
        }
    }

}

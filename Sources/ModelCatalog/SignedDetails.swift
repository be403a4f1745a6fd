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

    /// What `refresh` did.
    public enum Outcome: Sendable, Equatable {
        /// The pointer written.
        case signed(SignedPointer)
        /// Nothing signed (SPEC §12.1): the snapshot for the version holds other bytes; the
        /// previous pointer stays. Already reported to the store's `onRefused`.
        case refused(SnapshotMismatch)
    }

    /// Under the publish lock (so catalog.json and the derived bytes are one version): derives
    /// latest_model_details.json from the catalog (SPEC §12.1: never read back to be signed),
    /// writes the snapshot of the current version when missing, signs the derived bytes into a
    /// fresh pointer and prunes old snapshots — unless the snapshot holds other bytes.
    @discardableResult
    public func refresh(now: Int64) throws(CatalogError) -> Outcome {
        try FileIO.makeDirectory(store.directory)
        return try PublishLock.withLock(path: store.lockPath) { () throws(CatalogError) -> Outcome in
            let catalog = try store.load()
            let version = catalog.catalogVersion
            let details = catalog.latestDetailsJSON(publicBaseURL: store.baseURL(of: catalog))
            // The derived file is replaced by every change and cached briefly, never as
            // immutable: one that is missing or not the derivation is written afresh.
            if try FileIO.read(store.latestDetailsPath) != details { try FileIO.atomicReplace(store.latestDetailsPath, with: details) }
            let snapshot = snapshotPath(catalog: version)
            // Immutable once written: a CDN may have cached it for a year.
            switch DerivedSnapshot.compare(file: SignedPointer.snapshotPath(catalog: version), catalog: version,
                                           derived: details, onDisk: try FileIO.read(snapshot)) {
            case .mismatch(let refusal):
                store.onRefused?(refusal)
                return .refused(refusal)
            case .same: break
            case .missing:
                try FileIO.makeDirectory(snapshotDirectory)
                try FileIO.atomicReplace(snapshot, with: details)
            }
            let pointer = SignedPointer(stamp: signer.sign(kind: .details, catalog: version, body: details, now: now))
            try FileIO.atomicReplace(pointerPath, with: pointer.encoded())
            SnapshotRetention.prune(directory: snapshotDirectory, current: version, graceDays: graceDays, now: now)
            return .signed(pointer)
        }
    }
}

import BinaryText
import CryptoPrimitives
import ModeldSigning

/// A file a writer derived from the catalog but did not sign (SPEC §12.1): the file for that
/// version already holds other bytes. Nothing is signed for it and the previous pointer stays;
/// a new catalog version (`modelctl catalog bump`) derives fresh snapshots.
public struct SnapshotMismatch: Sendable, Equatable {
    /// The repair `verify` and every refusal name.
    public static let remedy = "modelctl catalog bump"

    /// Relative to the models directory: `details/4.json`, `rules/stable/4.json`.
    public let file: String
    /// The catalog version whose derivation the file was compared with.
    public let catalog: Int64
    public let expectedSize: Int64
    public let expectedSHA256: String
    public let foundSize: Int64
    public let foundSHA256: String

    /// One line for a log or stderr, naming the file, both digests and the remedy.
    public var message: String {
        "\(file) holds other bytes than catalog version \(catalog) derives (sha256 \(foundSHA256), expected \(expectedSHA256)): "
            + "nothing signed for it, the previous pointer kept; run `\(Self.remedy)` to derive fresh snapshots"
    }
}

/// The derive-and-compare rule every signer and `modelctl verify` share (SPEC §12.1): bytes are
/// derived from catalog.json, never read back from disk to be signed. Pure.
public enum DerivedSnapshot {
    public enum Outcome: Sendable, Equatable {
        /// No file yet: write the derived bytes (as before §12.1).
        case missing
        /// The file holds exactly the derived bytes.
        case same
        /// The file holds other bytes: sign nothing for it.
        case mismatch(SnapshotMismatch)
    }

    /// `derived` (the catalog's bytes for `catalog`) against `onDisk` (nil: no file) at `file`.
    public static func compare(file: String, catalog: Int64, derived: [UInt8], onDisk: [UInt8]?) -> Outcome {
        guard let onDisk else { return .missing }
        guard onDisk != derived else { return .same }
        return .mismatch(SnapshotMismatch(
            file: file, catalog: catalog,
            expectedSize: Int64(derived.count), expectedSHA256: Hex.encode(SHA256.hash(data: derived)),
            foundSize: Int64(onDisk.count), foundSHA256: Hex.encode(SHA256.hash(data: onDisk))))
    }

    /// The snapshots `catalog` derives at its own version, relative to the models directory:
    /// `details/<N>.json` and each channel's `rules/<channel>/<N>.json`. Only the current version
    /// has a derivation (older catalogs are gone), so only these can be checked against the disk.
    /// (`latest_model_details.json` is no snapshot: any change replaces it, a signer rewrites it.)
    public static func files(of catalog: Catalog, publicBaseURL: String) -> [(file: String, bytes: [UInt8])] {
        let version = catalog.catalogVersion
        return [(SignedPointer.snapshotPath(catalog: version), catalog.latestDetailsJSON(publicBaseURL: publicBaseURL))]
            + catalog.releasesByChannel.sorted { $0.key < $1.key }.map { channel, releases in
                (SignedPointer.rulesSnapshotPath(channel: channel, catalog: version),
                 Catalog.rulesJSON(channel: channel, releases: releases, catalogVersion: version, publicBaseURL: publicBaseURL))
            }
    }
}

import BinaryText
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `latest_model_details.sig.json` (SPEC §12): the short-lived signed pointer to the immutable
/// snapshot `details/<N>.json`. The signature is over the base rebuilt from its typed fields.
public struct SignedPointer: Sendable, Equatable {
    public static let fileName = "latest_model_details.sig.json"
    public static let snapshotDirectory = "details"

    public var catalog: Int64
    public var created: Int64
    public var expires: Int64
    /// Relative to the pointer's URL: `details/<N>.json`.
    public var file: String
    public var size: Int
    public var sha256: String
    public var signatures: [Signature]

    public init(stamp: SignedStamp) {
        catalog = stamp.params.catalog
        created = stamp.params.created
        expires = stamp.params.expires
        file = Self.snapshotPath(catalog: stamp.params.catalog)
        size = stamp.base.size
        sha256 = stamp.base.sha256
        signatures = stamp.signatures
    }

    public static func snapshotPath(catalog: Int64) -> String { "\(snapshotDirectory)/\(catalog).json" }

    public var params: SignatureParams { SignatureParams(catalog: catalog, created: created, expires: expires) }

    public var base: SignatureBase {
        SignatureBase(kind: .details, catalog: catalog, created: created, expires: expires, size: size, sha256: sha256)
    }

    /// One line of JSON, fields in the SPEC's order.
    public func encoded() -> [UInt8] {
        let sigs = signatures.map { "{\"keyid\":\"\($0.keyID)\",\"sig\":\"\($0.base64)\"}" }.joined(separator: ",")
        return Array("""
        {"v":1,"kind":"details","catalog":\(catalog),"created":\(created),"expires":\(expires),\
        "file":"\(file)","size":\(size),"sha256":"\(sha256)","signatures":[\(sigs)]}

        """.utf8)
    }

    private struct Wire: Decodable {
        struct Sig: Decodable {
            let keyid: String
            let sig: String
        }
        let v: Int
        let kind: String
        let catalog: Int64
        let created: Int64
        let expires: Int64
        let file: String
        let size: Int
        let sha256: String
        let signatures: [Sig]
    }

    /// Parses and checks the shape; whether the signatures verify is the verifier's job.
    public static func decode(_ bytes: [UInt8]) throws(PointerError) -> SignedPointer {
        let w: Wire
        do { w = try JSONDecoder().decode(Wire.self, from: Data(bytes)) } catch {
            throw PointerError("not a signed pointer: \(error)")
        }
        guard w.v == 1, w.kind == "details" else { throw PointerError("unsupported pointer v=\(w.v) kind=\(w.kind)") }
        guard Hex.isLowercase(w.sha256, bytes: 32), w.size >= 0 else { throw PointerError("bad size or sha256") }
        // `file` is resolved against the pointer's URL: only the snapshot form is accepted, so a
        // tampered pointer cannot send a client elsewhere (and it is signed-over via catalog).
        guard w.file == snapshotPath(catalog: w.catalog) else { throw PointerError("file \(w.file) is not \(snapshotPath(catalog: w.catalog))") }
        var signatures: [Signature] = []
        for s in w.signatures {
            guard KeyID.isValid(s.keyid), let bytes = Data(base64Encoded: s.sig) else {
                throw PointerError("bad signature entry for keyid \(s.keyid)")
            }
            signatures.append(Signature(keyID: s.keyid, bytes: Array(bytes)))
        }
        var p = SignedPointer(catalog: w.catalog, created: w.created, expires: w.expires, size: w.size, sha256: w.sha256)
        p.signatures = signatures
        return p
    }

    private init(catalog: Int64, created: Int64, expires: Int64, size: Int, sha256: String) {
        self.catalog = catalog
        self.created = created
        self.expires = expires
        file = Self.snapshotPath(catalog: catalog)
        self.size = size
        self.sha256 = sha256
        signatures = []
    }
}

public struct PointerError: Error, Sendable, CustomStringConvertible {
    public var description: String
    init(_ d: String) { description = d }
}

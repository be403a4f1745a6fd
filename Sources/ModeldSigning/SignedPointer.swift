import BinaryText
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ReleaseSelection

/// A short-lived signed pointer to an immutable snapshot; the signature is over the base rebuilt
/// from its typed fields. `kind` details: `latest_model_details.sig.json` → `details/<N>.json`
/// (SPEC §12); `kind` rules: `rules/<channel>.sig.json` → `<channel>/<N>.json` (SPEC §9.2,
/// `file` relative to the pointer's URL, `channel` named in the pointer).
public struct SignedPointer: Sendable, Equatable {
    public static let fileName = "latest_model_details.sig.json"
    public static let snapshotDirectory = "details"
    public static let rulesDirectory = "rules"

    public var kind: SignatureBase.Kind
    /// The channel of a rules pointer; nil for details.
    public var channel: String?
    public var catalog: Int64
    public var created: Int64
    public var expires: Int64
    /// Relative to the pointer's URL: `details/<N>.json`, or `<channel>/<N>.json` for rules.
    public var file: String { Self.file(kind: kind, channel: channel, catalog: catalog) }
    public var size: Int
    public var sha256: String
    public var signatures: [Signature]

    /// A details pointer (SPEC §12).
    public init(stamp: SignedStamp) {
        self.init(kind: .details, channel: nil, params: stamp.params, base: stamp.base, signatures: stamp.signatures)
    }

    /// A rules pointer of `channel` (SPEC §9.2): signed by `stamp`, or, without signing keys,
    /// `params` and `body` with `"signatures":[]`.
    public init(rulesOf channel: String, params: SignatureParams, body: [UInt8], signatures: [Signature]) {
        self.init(kind: .rules, channel: channel, params: params, base: params.base(kind: .rules, body: body), signatures: signatures)
    }

    private init(kind: SignatureBase.Kind, channel: String?, params: SignatureParams, base: SignatureBase, signatures: [Signature]) {
        self.kind = kind
        self.channel = channel
        catalog = params.catalog
        created = params.created
        expires = params.expires
        size = base.size
        sha256 = base.sha256
        self.signatures = signatures
    }

    public static func snapshotPath(catalog: Int64) -> String { "\(snapshotDirectory)/\(catalog).json" }

    /// `rules/<channel>.sig.json`, relative to the directory that holds `rules/`.
    public static func rulesPointerPath(channel: String) -> String { "\(rulesDirectory)/\(channel).sig.json" }

    /// `rules/<channel>/<N>.json`, relative to the directory that holds `rules/`.
    public static func rulesSnapshotPath(channel: String, catalog: Int64) -> String {
        "\(rulesDirectory)/" + file(kind: .rules, channel: channel, catalog: catalog)
    }

    private static func file(kind: SignatureBase.Kind, channel: String?, catalog: Int64) -> String {
        kind == .rules ? "\(channel ?? "")/\(catalog).json" : snapshotPath(catalog: catalog)
    }

    public var params: SignatureParams { SignatureParams(catalog: catalog, created: created, expires: expires) }

    public var base: SignatureBase {
        SignatureBase(kind: kind, catalog: catalog, created: created, expires: expires, size: size, sha256: sha256)
    }

    /// One line of JSON, fields in the SPEC's order (a rules pointer names its channel after `kind`).
    public func encoded() -> [UInt8] {
        let channelField = channel.map { ",\"channel\":\"\($0)\"" } ?? ""
        return Array("""
        {"v":1,"kind":"\(kind.rawValue)"\(channelField),"catalog":\(catalog),"created":\(created),"expires":\(expires),\
        "file":"\(file)","size":\(size),"sha256":"\(sha256)","signatures":\(Signature.jsonArray(signatures))}

        """.utf8)
    }

    private struct Wire: Decodable {
        let v: Int
        let kind: String
        let channel: String?
        let catalog: Int64
        let created: Int64
        let expires: Int64
        let file: String
        let size: Int
        let sha256: String
        let signatures: [Signature.JSON]
    }

    /// Parses and checks the shape; whether the signatures verify is the verifier's job.
    public static func decode(_ bytes: [UInt8]) throws(PointerError) -> SignedPointer {
        let w: Wire
        do { w = try JSONDecoder().decode(Wire.self, from: Data(bytes)) } catch {
            throw PointerError("not a signed pointer: \(error)")
        }
        let kind: SignatureBase.Kind
        switch (w.v, w.kind, w.channel) {
        case (1, "details", nil): kind = .details
        case (1, "rules", let channel?) where NameRule.matches(channel): kind = .rules
        default: throw PointerError("unsupported pointer v=\(w.v) kind=\(w.kind) channel=\(w.channel ?? "-")")
        }
        guard Hex.isLowercase(w.sha256, bytes: 32), w.size >= 0 else { throw PointerError("bad size or sha256") }
        // `file` is resolved against the pointer's URL: only the snapshot form is accepted, so a
        // tampered pointer cannot send a client elsewhere (and it is signed-over via catalog).
        let expected = file(kind: kind, channel: w.channel, catalog: w.catalog)
        guard w.file == expected else { throw PointerError("file \(w.file) is not \(expected)") }
        let signatures = try Signature.decoded(w.signatures)
        let params = SignatureParams(catalog: w.catalog, created: w.created, expires: w.expires)
        return SignedPointer(kind: kind, channel: w.channel, params: params,
                             base: SignatureBase(kind: kind, catalog: w.catalog, created: w.created, expires: w.expires, size: w.size, sha256: w.sha256),
                             signatures: signatures)
    }
}

extension Signature {
    /// An entry of a signed document's `signatures` (a pointer, the rules index).
    struct JSON: Decodable {
        let keyid: String
        let sig: String
    }

    /// `signatures` as the documents write it: `[{"keyid":"…","sig":"<base64>"},…]`.
    static func jsonArray(_ signatures: [Signature]) -> String {
        "[" + signatures.map { "{\"keyid\":\"\($0.keyID)\",\"sig\":\"\($0.base64)\"}" }.joined(separator: ",") + "]"
    }

    /// Each entry with a valid keyid and base64; whether they verify is the verifier's job.
    static func decoded(_ entries: [JSON]) throws(PointerError) -> [Signature] {
        var signatures: [Signature] = []
        for s in entries {
            guard KeyID.isValid(s.keyid), let bytes = Data(base64Encoded: s.sig) else {
                throw PointerError("bad signature entry for keyid \(s.keyid)")
            }
            signatures.append(Signature(keyID: s.keyid, bytes: Array(bytes)))
        }
        return signatures
    }
}

public struct PointerError: Error, Sendable, CustomStringConvertible {
    public var description: String
    init(_ d: String) { description = d }
}

import BinaryText
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ReleaseSelection

/// `rules/index.sig.json` (SPEC §17.2): §12's pointer with `"kind":"rules-index"` naming every
/// channel's current rules snapshot, so a client with many channels revalidates one file per poll
/// and fetches only the snapshots whose entry changed.
///
/// Like a pointer, the signature is over the base rebuilt from typed fields (never JSON bytes):
/// §12's base with `kind=rules-index`, whose `size`/`sha256` are those of the *entries text*, one
/// line `<channel> <file> <size> <sha256>\n` per channel in byte order of the names.
public struct RulesIndex: Sendable, Equatable {
    public static let path = SignedPointer.rulesDirectory + "/index.sig.json"

    public struct Entry: Sendable, Equatable, Decodable {
        /// `<channel>/<N>.json`, relative to the index's URL.
        public var file: String
        public var sha256: String
        public var size: Int

        public init(file: String, sha256: String, size: Int) {
            (self.file, self.sha256, self.size) = (file, sha256, size)
        }

        /// The snapshot's catalog version (the file is `<channel>/<N>.json`).
        public var catalog: Int64? { file.split(separator: "/").last.flatMap { Int64($0.dropLast(5)) } }
    }

    public var catalog: Int64
    public var created: Int64
    public var expires: Int64
    public var channels: [String: Entry]
    public var signatures: [Signature]

    public init(params: SignatureParams, channels: [String: Entry], signatures: [Signature]) {
        catalog = params.catalog
        created = params.created
        expires = params.expires
        self.channels = channels
        self.signatures = signatures
    }

    public var params: SignatureParams { SignatureParams(catalog: catalog, created: created, expires: expires) }

    /// What the signature covers of the entries.
    public static func entriesText(_ channels: [String: Entry]) -> [UInt8] {
        Array(channels.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
            .map { "\($0.key) \($0.value.file) \($0.value.size) \($0.value.sha256)\n" }.joined().utf8)
    }

    public var base: SignatureBase { params.base(kind: .rulesIndex, body: Self.entriesText(channels)) }

    /// One line of JSON: `v`, `kind`, `catalog`, `channels` (by name), `created`, `expires`, `signatures`.
    public func encoded() -> [UInt8] {
        let entries = channels.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
            .map { #""\#($0.key)":{"file":"\#($0.value.file)","sha256":"\#($0.value.sha256)","size":\#($0.value.size)}"# }
            .joined(separator: ",")
        return Array(#"{"v":1,"kind":"rules-index","catalog":\#(catalog),"channels":{\#(entries)},"created":\#(created),"expires":\#(expires),"signatures":\#(Signature.jsonArray(signatures))}"#.utf8 + [0x0A])
    }

    private struct Wire: Decodable {
        let v: Int
        let kind: String
        let catalog: Int64
        let channels: [String: Entry]
        let created: Int64
        let expires: Int64
        let signatures: [Signature.JSON]
    }

    /// Parses and checks the shape (each entry names its own channel's snapshot form); whether
    /// the signatures verify is the verifier's job.
    public static func decode(_ bytes: [UInt8]) throws(PointerError) -> RulesIndex {
        let w: Wire
        do { w = try JSONDecoder().decode(Wire.self, from: Data(bytes)) } catch { throw PointerError("not a rules index: \(error)") }
        guard w.v == 1, w.kind == SignatureBase.Kind.rulesIndex.rawValue else { throw PointerError("unsupported index v=\(w.v) kind=\(w.kind)") }
        for (channel, entry) in w.channels {
            guard NameRule.matches(channel), Hex.isLowercase(entry.sha256, bytes: 32), entry.size >= 0 else {
                throw PointerError("bad index entry for channel \(channel)")
            }
            // Only `<channel>/<N>.json`: a tampered entry cannot send a client elsewhere.
            guard let n = entry.catalog, n >= 0, entry.file == "\(channel)/\(n).json" else {
                throw PointerError("index entry of \(channel) names \(entry.file)")
            }
        }
        let signatures = try Signature.decoded(w.signatures)
        return RulesIndex(params: SignatureParams(catalog: w.catalog, created: w.created, expires: w.expires), channels: w.channels,
                          signatures: signatures)
    }
}

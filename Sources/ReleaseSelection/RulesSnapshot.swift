import JSONSupport

/// A channel's rules document (SPEC §9.2), `models/rules/<channel>/<N>.json`:
/// `{"v":1,"channel":C,"catalog":N,"releases":[…]}` with the channel's active releases, each the
/// fields of its §4.1 document plus `seq`, `rollout_percent` and `variants`. The server writes it
/// (ModelCatalog); clients decode it here and evaluate it with `ReleaseSelector`, so the device
/// gets exactly what `/latest` would answer, `chunks` (SPEC §14), `packed` and `patches` (§16) included. Unknown keys are
/// ignored; a known key of the wrong type or an invalid value fails the whole document.
public struct RulesSnapshot: Decodable, Equatable, Sendable {
    public static let version = 1

    public let v: Int
    public let channel: String
    public let catalog: Int64
    public let releases: [Entry]

    /// A release of the snapshot: its §4.1 document (`ReleaseDocument`, the shape shared with
    /// `/latest`; its members read through, `entry.sha256`) plus `seq`, `rollout_percent` and the
    /// live variants in listed order.
    @dynamicMemberLookup
    public struct Entry: Decodable, Equatable, Sendable, SelectableRelease {
        public let document: ReleaseDocument
        public let seq: Int64
        public let rolloutPercent: Int
        public let variants: [Variant]
        private let minVersion: SDKVersion
        private let maxVersion: SDKVersion?

        /// After the document's members.
        enum CodingKeys: String, CodingKey {
            case seq, rolloutPercent = "rollout_percent", variants
        }

        public init(from decoder: any Decoder) throws {
            document = try ReleaseDocument(from: decoder)
            let c = try decoder.container(keyedBy: CodingKeys.self)
            seq = try c.decode(Int64.self, forKey: .seq)
            rolloutPercent = try c.decode(Int.self, forKey: .rolloutPercent)
            variants = try c.decode([Variant].self, forKey: .variants)
            // The release contract's own rules (ReleaseFields), as the server published by.
            (minVersion, maxVersion) = try document.checkFields()
            try ReleaseFields.checkRollout(rolloutPercent)
            guard document.label != nil, document.publishedAt != nil else { throw InvalidInput("releases", "an entry lacks label or published_at") }
        }

        /// The server's side of `init(from:)`: the document's members, then the rules' own.
        package static func write(document: ReleaseDocument, seq: Int64, rolloutPercent: Int, variants: [Variant], to w: inout JSONWriter) {
            w.beginObject()
            document.writeFields(to: &w)
            w.field(CodingKeys.seq, seq)
            w.field(CodingKeys.rolloutPercent, rolloutPercent)
            w.key(CodingKeys.variants.stringValue)
            w.beginArray()
            for v in variants { v.write(to: &w) }
            w.endArray()
            w.endObject()
        }

        public subscript<T>(dynamicMember member: KeyPath<ReleaseDocument, T>) -> T { document[keyPath: member] }
        public var id: String { document.id }
        public var channel: String { document.channel }
        public var base: ReleaseBase? { document.base }
        /// Never nil in an entry (`init(from:)` requires them).
        public var label: String { document.label ?? "" }
        public var publishedAt: String { document.publishedAt ?? "" }
        public var isSelectable: Bool { true }   // the snapshot lists active releases only

        public func covers(_ sdk: SDKVersion) -> Bool {
            minVersion <= sdk && (maxVersion.map { sdk < $0 } ?? true)
        }
    }

    /// A variant of an entry: its file (and that file's other forms) and its conditions.
    public struct Variant: Decodable, Equatable, Sendable, SelectableVariant {
        public let name: String
        public let url: String
        public let sha256: String
        public let size: Int64
        public let requires: VariantRequirements
        public let diskBytes: Int64?
        public let chunks: ChunkListReference?
        public let packed: PackedReference?
        public let patches: [PatchReference]?

        public var isLive: Bool { true }   // removed variants are not listed

        /// In written order; `chunks`, `packed` and `patches` after `disk_bytes`, as `FileLinks` writes them.
        enum CodingKeys: String, CodingKey {
            case name, url, sha256, size, diskBytes = "disk_bytes", chunks, packed, patches, requires
        }

        public init(name: String, url: String, sha256: String, size: Int64, requires: VariantRequirements, diskBytes: Int64?,
                    chunks: ChunkListReference?, packed: PackedReference?, patches: [PatchReference]?) {
            (self.name, self.url, self.sha256, self.size, self.requires, self.diskBytes) = (name, url, sha256, size, requires, diskBytes)
            (self.chunks, self.packed, self.patches) = (chunks, packed, patches)
        }

        func write(to w: inout JSONWriter) {
            w.beginObject()
            w.field(CodingKeys.name, name)
            w.field(CodingKeys.url, url)
            w.field(CodingKeys.sha256, sha256)
            w.field(CodingKeys.size, size)
            if let diskBytes { w.field(CodingKeys.diskBytes, diskBytes) }
            FileLinks(chunks: chunks, packed: packed, patches: patches).write(to: &w)
            w.key(CodingKeys.requires.stringValue)
            requires.write(to: &w)
            w.endObject()
        }
    }

    /// What the device gets (SPEC §3, §3.1): the release and, when one matches, its variant.
    public struct Answer: Equatable, Sendable {
        public let release: Entry
        public let variant: Variant?

        /// The §4.1 document `/latest` answers for it (SPEC §9.2, §3.1): with a variant, its
        /// file's url, sha256, size, disk bytes, chunk list, packed form and patches (never the
        /// release's: another file) and its name.
        public var document: ReleaseDocument {
            var d = release.document
            if let variant {
                (d.url, d.sha256, d.size, d.diskBytes, d.variant) = (variant.url, variant.sha256, variant.size, variant.diskBytes, variant.name)
                (d.chunks, d.packed, d.patches) = (variant.chunks, variant.packed, variant.patches)
            }
            return d
        }
    }

    /// The answer `/latest` gives for these inputs at this snapshot's catalog version; nil =
    /// `no_model`.
    /// `bases`: the client's installed models (SPEC §3.2), for releases with a base.
    public func answer(sdk: SDKVersion, clientID: String?, device: DeviceAttributes, bases: ReportedBases = .none) -> Answer? {
        guard let release = ReleaseSelector.select(from: releases, sdk: sdk, channel: channel, clientID: clientID, bases: bases).release else {
            return nil
        }
        return Answer(release: release, variant: release.variantIndex(for: device).map { release.variants[$0] })
    }

    /// Checks what decoding cannot: the version this reader understands.
    public func validated() throws(InvalidInput) -> RulesSnapshot {
        guard v == Self.version else { throw InvalidInput("v", "unsupported rules version \(v)") }
        guard releases.allSatisfy({ $0.channel == channel }) else { throw InvalidInput("releases", "an entry is not of channel \(channel)") }
        return self
    }
}

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

    public struct Entry: Decodable, Equatable, Sendable, SelectableRelease {
        public let id: String
        public let url: String
        public let sha256: String
        public let size: Int64
        public let sdkMin: String
        public let sdkMax: String?
        public let channel: String
        public let label: String
        public let publishedAt: String
        public let seq: Int64
        public let rolloutPercent: Int
        public let variants: [Variant]
        /// The file's chunk list (SPEC §14), when one was published: what delta updates use.
        public let chunks: ChunkListReference?
        /// The file's packed form and patches (SPEC §16), when derived: what the client weighs
        /// against a delta and the full file.
        public let packed: PackedReference?
        public let patches: [PatchReference]?
        private let minVersion: SDKVersion
        private let maxVersion: SDKVersion?

        enum CodingKeys: String, CodingKey {
            case id, url, sha256, size, channel, label, seq, variants, chunks, packed, patches
            case sdkMin = "sdk_min", sdkMax = "sdk_max", publishedAt = "published_at", rolloutPercent = "rollout_percent"
        }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            id = try c.decode(String.self, forKey: .id)
            url = try c.decode(String.self, forKey: .url)
            sha256 = try c.decode(String.self, forKey: .sha256)
            size = try c.decode(Int64.self, forKey: .size)
            sdkMin = try c.decode(String.self, forKey: .sdkMin)
            sdkMax = try c.decodeIfPresent(String.self, forKey: .sdkMax)
            channel = try c.decode(String.self, forKey: .channel)
            label = try c.decode(String.self, forKey: .label)
            publishedAt = try c.decode(String.self, forKey: .publishedAt)
            seq = try c.decode(Int64.self, forKey: .seq)
            rolloutPercent = try c.decode(Int.self, forKey: .rolloutPercent)
            variants = try c.decode([Variant].self, forKey: .variants)
            chunks = try c.decodeIfPresent(ChunkListReference.self, forKey: .chunks)
            packed = try c.decodeIfPresent(PackedReference.self, forKey: .packed)
            patches = try c.decodeIfPresent([PatchReference].self, forKey: .patches)
            guard let min = SDKVersion(sdkMin) else { throw InvalidInput("sdk_min", "\(sdkMin) is not an SDK version") }
            minVersion = min
            if let sdkMax {
                guard let max = SDKVersion(sdkMax) else { throw InvalidInput("sdk_max", "\(sdkMax) is not an SDK version") }
                maxVersion = max
            } else {
                maxVersion = nil
            }
            guard (0...100).contains(rolloutPercent) else { throw InvalidInput("rollout_percent", "\(rolloutPercent) is not 0–100") }
            guard NameRule.matches(channel) else { throw InvalidInput("channel", "\(channel) is not [a-z0-9_-]{1,32}") }
        }

        public var isSelectable: Bool { true }   // the snapshot lists active releases only

        public func covers(_ sdk: SDKVersion) -> Bool {
            minVersion <= sdk && (maxVersion.map { sdk < $0 } ?? true)
        }
    }

    public struct Variant: Decodable, Equatable, Sendable, SelectableVariant {
        public let name: String
        public let url: String
        public let sha256: String
        public let size: Int64
        public let requires: VariantRequirements
        public let chunks: ChunkListReference?
        public let packed: PackedReference?
        public let patches: [PatchReference]?

        public var isLive: Bool { true }   // removed variants are not listed
    }

    /// What the device gets (SPEC §3, §3.1): the release and, when one matches, its variant.
    public struct Answer: Equatable, Sendable {
        public let release: Entry
        public let variant: Variant?
        /// The file to download: the variant's when one matched.
        public var url: String { variant?.url ?? release.url }
        public var sha256: String { variant?.sha256 ?? release.sha256 }
        public var size: Int64 { variant?.size ?? release.size }
        /// The chunk list, packed form and patches of that file: a variant's own, never the
        /// release's (another file).
        public var chunks: ChunkListReference? { variant.map(\.chunks) ?? release.chunks }
        public var packed: PackedReference? { variant.map(\.packed) ?? release.packed }
        public var patches: [PatchReference]? { variant.map(\.patches) ?? release.patches }
    }

    /// The answer `/latest` gives for these inputs at this snapshot's catalog version; nil =
    /// `no_model`.
    public func answer(sdk: SDKVersion, clientID: String?, device: DeviceAttributes) -> Answer? {
        guard let release = ReleaseSelector.select(from: releases, sdk: sdk, channel: channel, clientID: clientID).release else {
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

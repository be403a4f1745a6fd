import JSONSupport

/// The SPEC §4.1 update-check document: what `/latest` answers, each entry of `POST /check`'s
/// `answers` (§17.2), each value of `latest_model_details.json` (§2) and, with `seq`,
/// `rollout_percent` and `variants`, each release of a rules snapshot (§9.2). Its one shape,
/// shared by server and client (issue 35 item 8): `CodingKeys` names the fields in the order
/// `write(to:)` writes them, and an optional field is absent when nil, in both directions. The
/// server builds it from its catalog release and writes it; the client decodes it and keeps it
/// as the release it installs (`ModeldClient.ReleaseDocument`).
public struct ReleaseDocument: Decodable, Sendable, Equatable {
    public var url: String
    public var id: String
    public var sha256: String
    public var size: Int64
    /// The file's chunk list (SPEC §14), when the server published one: what delta updates use.
    public var chunks: ChunkListReference?
    /// The file's packed form and its patches from earlier releases (SPEC §16), once derived:
    /// `patches` present (possibly empty) says the file was derived.
    public var packed: PackedReference?
    public var patches: [PatchReference]?
    public var sdkMin: String
    public var sdkMax: String?
    public var channel: String
    /// Always written by the server; nil only for a model no server described (a bundled one).
    public var label: String?
    public var publishedAt: String?
    /// The device-class variant answered instead of the default file (SPEC §3.1).
    public var variant: String?
    /// The model this adapter applies on top of (SPEC §3.2).
    public var base: ReleaseBase?
    /// What the device knows before the download (SPEC §3.2).
    public var displayName: String?
    public var license: ReleaseLicense?
    public var minRAMMB: Int?
    /// Free space the download and install need; nil from a server before v6.
    public var diskBytes: Int64?

    /// In document order: `write(to:)` follows it.
    enum CodingKeys: String, CodingKey {
        case url, id, sha256, size, chunks, packed, patches
        case sdkMin = "sdk_min", sdkMax = "sdk_max", channel, label, publishedAt = "published_at", variant
        case base, displayName = "display_name", license, minRAMMB = "min_ram_mb", diskBytes = "disk_bytes"
    }

    public init(url: String, id: String, sha256: String, size: Int64, sdkMin: String, sdkMax: String? = nil, channel: String,
                label: String? = nil, publishedAt: String? = nil, variant: String? = nil, chunks: ChunkListReference? = nil,
                packed: PackedReference? = nil, patches: [PatchReference]? = nil, base: ReleaseBase? = nil,
                displayName: String? = nil, license: ReleaseLicense? = nil, minRAMMB: Int? = nil, diskBytes: Int64? = nil) {
        (self.url, self.id, self.sha256, self.size, self.sdkMin, self.sdkMax, self.channel) = (url, id, sha256, size, sdkMin, sdkMax, channel)
        (self.label, self.publishedAt, self.variant, self.chunks, self.packed, self.patches) = (label, publishedAt, variant, chunks, packed, patches)
        (self.base, self.displayName, self.license, self.minRAMMB, self.diskBytes) = (base, displayName, license, minRAMMB, diskBytes)
    }

    /// The release's own fields by the release contract (ReleaseFields): what the server
    /// publishes by, so a document it could not have written is refused. The SDK range parsed.
    @discardableResult
    package func checkFields() throws(InvalidInput) -> (min: SDKVersion, max: SDKVersion?) {
        try ReleaseFields.checkID(id)
        try ReleaseFields.checkChannel(channel)
        let range = try ReleaseFields.checkSDKRange(min: sdkMin, max: sdkMax)
        if let label { try ReleaseFields.checkLabel(label) }
        if let displayName { try ReleaseFields.checkDisplayName(displayName) }
        if let minRAMMB { try ReleaseFields.checkMinRAMMB(minRAMMB) }
        return range
    }

    /// `{…}`: the server's bytes (`/latest`, `/check`, the details).
    package var json: [UInt8] {
        var w = JSONWriter(capacity: 384)
        write(to: &w)
        return w.bytes
    }

    package func write(to w: inout JSONWriter) {
        w.beginObject()
        writeFields(to: &w)
        w.endObject()
    }

    /// The members without braces: a rules entry continues the object (`RulesSnapshot.Entry`).
    func writeFields(to w: inout JSONWriter) {
        w.field(CodingKeys.url, url)
        w.field(CodingKeys.id, id)
        w.field(CodingKeys.sha256, sha256)
        w.field(CodingKeys.size, size)
        FileLinks(chunks: chunks, packed: packed, patches: patches).write(to: &w)
        w.field(CodingKeys.sdkMin, sdkMin)
        if let sdkMax { w.field(CodingKeys.sdkMax, sdkMax) }
        w.field(CodingKeys.channel, channel)
        if let label { w.field(CodingKeys.label, label) }
        if let publishedAt { w.field(CodingKeys.publishedAt, publishedAt) }
        if let variant { w.field(CodingKeys.variant, variant) }
        Self.writePreDownloadFields(base: base, displayName: displayName, license: license, minRAMMB: minRAMMB, to: &w)
        if let diskBytes { w.field(CodingKeys.diskBytes, diskBytes) }
    }

    /// `base`, `display_name`, `license`, `min_ram_mb` (SPEC §3.2), each when set: the same
    /// members in this document and in the catalog's entry of the release.
    package static func writePreDownloadFields(base: ReleaseBase?, displayName: String?, license: ReleaseLicense?, minRAMMB: Int?,
                                              to w: inout JSONWriter) {
        if let base { w.key(CodingKeys.base.stringValue); base.write(to: &w) }
        if let displayName { w.field(CodingKeys.displayName, displayName) }
        if let license { w.key(CodingKeys.license.stringValue); license.write(to: &w) }
        if let minRAMMB { w.field(CodingKeys.minRAMMB, minRAMMB) }
    }
}

/// A file's other forms as a document names them (SPEC §14, §16): `chunks`, `packed` and
/// `patches`, each when set, in this order — the release's file and a rules entry's variant
/// alike.
struct FileLinks {
    let chunks: ChunkListReference?
    let packed: PackedReference?
    let patches: [PatchReference]?

    func write(to w: inout JSONWriter) {
        if let chunks { w.key("chunks"); Self.file(&w, url: chunks.url, sha256: chunks.sha256, size: chunks.size) }
        if let packed { w.key("packed"); Self.file(&w, url: packed.url, sha256: packed.sha256, size: packed.size, width: packed.width) }
        if let patches {
            w.key("patches")
            w.beginArray()
            for p in patches { Self.file(&w, from: p.from, url: p.url, sha256: p.sha256, size: p.size) }
            w.endArray()
        }
    }

    /// One of them: `{"from"?,"url","sha256","size","width"?}`.
    private static func file(_ w: inout JSONWriter, from: String? = nil, url: String, sha256: String, size: Int64, width: Int? = nil) {
        w.beginObject()
        if let from { w.field("from", from) }
        w.field("url", url)
        w.field("sha256", sha256)
        w.field("size", size)
        if let width { w.field("width", width) }
        w.endObject()
    }
}

extension JSONWriter {
    mutating func field(_ k: some CodingKey, _ v: String) { field(k.stringValue, v) }
    mutating func field(_ k: some CodingKey, _ v: Int64) { field(k.stringValue, v) }
    mutating func field(_ k: some CodingKey, _ v: Int) { field(k.stringValue, v) }
}

import BinaryText
import Guardrails

/// One published model (SPEC §3). A value: the catalog is an array of these.
/// `sdkMin`/`sdkMax` keep the text as published; `sdkMinVersion`/`sdkMaxVersion` are parsed once.
public struct Release: Hashable, Sendable {
    public enum State: String, Sendable, CaseIterable {
        case active, paused, retired
    }

    /// The stored fields, in one shared immutable box: the catalog, its channel index and every
    /// served cell hold the same releases, so a copy is one retain where the fields were about
    /// twenty (SPEC §17.1: copies were a fifth of a reload at 10,000 releases). A change (rare:
    /// writers only) makes a new box. `let`, so reads and comparisons borrow the fields in place.
    private final class Box: Sendable {
        let fields: Fields
        /// The catalog entry these fields were decoded from (SPEC §17.1): written back as they
        /// are while the release is unchanged, and compared as bytes by the next reload, so an
        /// unchanged release is neither encoded nor decoded again. A change makes a box without.
        let entry: [UInt8]?
        init(_ fields: Fields, entry: [UInt8]? = nil) { (self.fields, self.entry) = (fields, entry) }
    }

    private struct Fields: Hashable {
        var id: String
        var seq: Int64
        var ext: String
        var sha256: String
        var size: Int64
        var unpackedSize: Int64?
        var chunks: ChunkListFile?
        var transfer: TransferFiles?
        var sdkMin: String
        var sdkMax: String?
        var channel: String
        var rolloutPercent: Int
        var state: State
        var label: String
        var publishedAt: Timestamp
        var retiredAt: Timestamp?
        var fileDeletedAt: Timestamp?
        var contentType: String
        var guardPlan: GuardPlan?
        var variants: [Variant]
        var base: ReleaseBase?
        var info: ReleaseInfo
        var exposedAt: Timestamp?
        var sdkMinVersion: SDKVersion
        var sdkMaxVersion: SDKVersion?
    }

    private var box: Box

    /// A change (writers only) makes a new box: readers of the old one keep their value.
    private mutating func update<T>(_ field: WritableKeyPath<Fields, T>, _ value: T) {
        var fields = box.fields
        fields[keyPath: field] = value
        box = Box(fields)
    }

    public static func == (a: Release, b: Release) -> Bool { a.isIdentical(to: b) || a.box.fields == b.box.fields }

    /// Keeps `entry`, the catalog entry this release was just decoded from (`Catalog(decoding:)`).
    package mutating func keepEntry(_ entry: ArraySlice<UInt8>) { box = Box(box.fields, entry: Array(entry)) }

    /// The catalog entry it was decoded from, while unchanged.
    package var storedEntry: [UInt8]? { box.entry }

    /// Whether both are the one stored value, not two equal ones (what a reload took over).
    package func isIdentical(to other: Release) -> Bool { box === other.box }
    public func hash(into hasher: inout Hasher) { box.fields.hash(into: &hasher) }

    public var id: String { box.fields.id }
    public var seq: Int64 { box.fields.seq }
    public var ext: String { box.fields.ext }
    public var sha256: String { box.fields.sha256 }
    public var size: Int64 { box.fields.size }
    /// A zip's entries' total uncompressed size, read at publish (SPEC §3.2 `disk_bytes`); nil
    /// for other files, zips the reader refuses and zips published before it was recorded.
    public package(set) var unpackedSize: Int64? { get { box.fields.unpackedSize } set { update(\.unpackedSize, newValue) } }
    /// The file's chunk list (SPEC §14); nil for files published before v4 until backfilled.
    public package(set) var chunks: ChunkListFile? { get { box.fields.chunks } set { update(\.chunks, newValue) } }
    /// Its packed file and patches (SPEC §16); nil until the derivation worker got to it.
    public package(set) var transfer: TransferFiles? { get { box.fields.transfer } set { update(\.transfer, newValue) } }
    public private(set) var sdkMin: String { get { box.fields.sdkMin } set { update(\.sdkMin, newValue) } }
    public private(set) var sdkMax: String? { get { box.fields.sdkMax } set { update(\.sdkMax, newValue) } }
    public var channel: String { box.fields.channel }
    public package(set) var rolloutPercent: Int { get { box.fields.rolloutPercent } set { update(\.rolloutPercent, newValue) } }
    public package(set) var state: State { get { box.fields.state } set { update(\.state, newValue) } }
    public package(set) var label: String { get { box.fields.label } set { update(\.label, newValue) } }
    public var publishedAt: Timestamp { box.fields.publishedAt }
    public package(set) var retiredAt: Timestamp? { get { box.fields.retiredAt } set { update(\.retiredAt, newValue) } }
    public package(set) var fileDeletedAt: Timestamp? { get { box.fields.fileDeletedAt } set { update(\.fileDeletedAt, newValue) } }
    public var contentType: String { box.fields.contentType }
    /// The challenger's guard (SPEC §11.1), nil for an unguarded release.
    public package(set) var guardPlan: GuardPlan? { get { box.fields.guardPlan } set { update(\.guardPlan, newValue) } }
    /// Device-class files (SPEC §3.1), in answer order; removed ones stay until GC.
    public package(set) var variants: [Variant] { get { box.fields.variants } set { update(\.variants, newValue) } }
    /// The model this adapter applies on top of (SPEC §3.2); only checks reporting it get it.
    public package(set) var base: ReleaseBase? { get { box.fields.base } set { update(\.base, newValue) } }
    /// Display name, licence and RAM needed, known before a download (SPEC §3.2).
    public var info: ReleaseInfo { box.fields.info }
    /// When a change first left the release active above 0 %: from then on a check may have
    /// received it, so its `base` is fixed (docs/decisions/adapters.md). Nil = served nobody.
    public package(set) var exposedAt: Timestamp? { get { box.fields.exposedAt } set { update(\.exposedAt, newValue) } }
    public private(set) var sdkMinVersion: SDKVersion { get { box.fields.sdkMinVersion } set { update(\.sdkMinVersion, newValue) } }
    public private(set) var sdkMaxVersion: SDKVersion? { get { box.fields.sdkMaxVersion } set { update(\.sdkMaxVersion, newValue) } }

    /// `<id>.<ext>`: the file name under `models/` and the last segment of the download URL.
    public var file: String { "\(id).\(ext)" }

    /// Validates every field; the first violation is thrown as `invalid_parameter` naming it.
    public init(
        id: String, seq: Int64, ext: String, sha256: String, size: Int64, chunks: ChunkListFile? = nil,
        transfer: TransferFiles? = nil, sdkMin: String, sdkMax: String? = nil, channel: String = Release.defaultChannel,
        rolloutPercent: Int = 100, state: State = .active, label: String = "",
        publishedAt: Timestamp, retiredAt: Timestamp? = nil, fileDeletedAt: Timestamp? = nil,
        contentType: String? = nil, variants: [Variant] = [], guardPlan: GuardPlan? = nil,
        base: ReleaseBase? = nil, info: ReleaseInfo = .none, exposedAt: Timestamp? = nil, unpackedSize: Int64? = nil
    ) throws(CatalogError) {
        try Release.validateID(id)
        try Release.validateExt(ext)
        guard Hex.isLowercase(sha256, bytes: 32) else { throw .invalid("sha256", "must be 64 lowercase hex digits") }
        guard size >= 0 else { throw .invalid("size", "must not be negative") }
        guard seq > 0 else { throw .invalid("seq", "must be positive") }
        try Release.validateChannel(channel)
        try Release.validateRollout(rolloutPercent)
        try Release.validateLabel(label)
        let contentType = contentType ?? Release.defaultContentType(forExt: ext)
        try Release.validateContentType(contentType)
        let (minV, maxV) = try Release.validateRange(sdkMin: sdkMin, sdkMax: sdkMax)
        try Release.validateVariantNames(variants)
        box = Box(Fields(
            id: id, seq: seq, ext: ext, sha256: sha256, size: size, unpackedSize: unpackedSize, chunks: chunks, transfer: transfer, sdkMin:
            sdkMin, sdkMax: sdkMax, channel: channel, rolloutPercent: rolloutPercent, state: state, label: label, publishedAt:
            publishedAt, retiredAt: retiredAt, fileDeletedAt: fileDeletedAt, contentType: contentType, guardPlan: guardPlan,
            variants: variants, base: base, info: info, exposedAt: exposedAt, sdkMinVersion: minV, sdkMaxVersion: maxV))
    }

    package mutating func setSDKMax(_ text: String?) throws(CatalogError) {
        let (_, maxV) = try Release.validateRange(sdkMin: sdkMin, sdkMax: text)
        sdkMax = text
        sdkMaxVersion = maxV
    }

    /// Whether some check may have received this release (SPEC §3.2 "served nobody" is the
    /// opposite): it is or was active above 0 %. A catalog entry from before the field existed
    /// counts by its current state.
    public var mayHaveServed: Bool { exposedAt != nil || (state == .active && rolloutPercent > 0) }

    /// Records the first change that left it answerable (called after every publish and PATCH).
    package mutating func noteExposure(at now: Timestamp) {
        if exposedAt == nil, state == .active, rolloutPercent > 0 { exposedAt = now }
    }

    /// Bytes a device needs free to download and install `variant` (or the release's own file)
    /// (SPEC §3.2, docs/decisions/adapters.md): the file, plus the largest other form that
    /// exists beside it while installing — the packed file being decoded, or a zip's unpacked
    /// tree (kept beside the zip) — counted as the zip's own size when it was not recorded.
    public func diskBytes(variant: Variant? = nil) -> Int64 {
        let size = variant?.size ?? self.size
        let packed = (variant != nil ? variant?.transfer : transfer)?.packed?.size ?? 0
        let unpacked = (variant?.ext ?? ext).hasSuffix("zip") ? ((variant != nil ? variant?.unpackedSize : unpackedSize) ?? size) : 0
        return size + max(packed, unpacked)
    }

    /// Whether the guard still decides this release's rollout (SPEC §11.4): it has one that is
    /// not finished, and the release is not retired.
    public var hasRunningGuard: Bool {
        guard let guardPlan, state != .retired else { return false }
        return !guardPlan.isFinished
    }

    /// Whether a manual change stops the guard (SPEC §11.4): any rollout or state change stops
    /// a running guard, and resuming a release its guard paused stops that finished guard too,
    /// so no view shows a serving release as paused by its guard.
    package func guardStops(on patch: ReleasePatch) -> Bool {
        guard patch.rolloutPercent != nil || patch.state != nil else { return false }
        return hasRunningGuard || (patch.state == .active && guardPlan?.pausedItsRelease == true)
    }

    /// Whether a client at `v` is inside `[sdk_min, sdk_max)`.
    public func covers(_ v: SDKVersion) -> Bool {
        sdkMinVersion <= v && (sdkMaxVersion.map { v < $0 } ?? true)
    }
}

// MARK: - Field rules (shared by publish, patch and catalog load)

extension Release {
    public static let defaultChannel = "stable"

    /// Content types for extensions with a registered or de-facto standard type; everything
    /// else (mlmodel, onnx, gguf, tflite, bin, safetensors, …) is a byte stream. See
    /// docs/decisions/catalog.md.
    public static let knownContentTypes: [String: String] = [
        "json": "application/json",
        "zip": "application/zip",
        "mlmodelc.zip": "application/zip",
        "mlpackage.zip": "application/zip",
        "tar": "application/x-tar",
        "gz": "application/gzip",
        "tar.gz": "application/gzip",
        "tgz": "application/gzip",
        "zst": "application/zstd",
        "tar.zst": "application/zstd",
        "txt": "text/plain; charset=utf-8",
    ]

    /// What a file of no more specific type is.
    public static let byteStream = "application/octet-stream"

    public static func defaultContentType(forExt ext: String) -> String {
        knownContentTypes[ext] ?? byteStream
    }

    /// Everything after the first dot of an uploaded file name, lowercased (`a.mlmodelc.zip` →
    /// `mlmodelc.zip`); nil when there is no usable extension.
    public static func ext(fromFileName name: String) -> String? { ReleaseFields.ext(ofFileName: name) }

    // The rules themselves are ReleaseFields' (one contract for server, modelctl and client);
    // these report a failure as the catalog's `invalid_parameter`.

    public static func validateID(_ id: String) throws(CatalogError) {
        try CatalogError.catching { () throws(InvalidInput) in try ReleaseFields.checkID(id) }
    }

    public static func validateExt(_ ext: String) throws(CatalogError) {
        try CatalogError.catching { () throws(InvalidInput) in try ReleaseFields.checkExt(ext) }
    }

    public static func validateChannel(_ channel: String) throws(CatalogError) {
        try CatalogError.catching { () throws(InvalidInput) in try ReleaseFields.checkChannel(channel) }
    }

    /// `[a-z0-9_-]{1,32}`: channels, platforms and variant names.
    package static func isName(_ s: String) -> Bool { NameRule.matches(s) }

    public static func validateRollout(_ percent: Int) throws(CatalogError) {
        try CatalogError.catching { () throws(InvalidInput) in try ReleaseFields.checkRollout(percent) }
    }

    public static func validateLabel(_ label: String) throws(CatalogError) {
        try CatalogError.catching { () throws(InvalidInput) in try ReleaseFields.checkLabel(label) }
    }

    public static func validateContentType(_ type: String) throws(CatalogError) {
        try CatalogError.catching { () throws(InvalidInput) in try ReleaseFields.checkContentType(type) }
    }

    /// Live variant names are unique within a release (a removed one's name may be reused).
    package static func validateVariantNames(_ variants: [Variant]) throws(CatalogError) {
        var names = Set<String>()
        for v in variants where v.isLive {
            guard names.insert(v.name).inserted else { throw .invalid("variants", "duplicate variant name \(v.name)") }
        }
    }

    package static func validateRange(sdkMin: String, sdkMax: String?) throws(CatalogError) -> (SDKVersion, SDKVersion?) {
        try CatalogError.catching { () throws(InvalidInput) in try ReleaseFields.checkSDKRange(min: sdkMin, max: sdkMax) }
    }

    /// A fresh random RFC 9562 version-4 UUID, lowercase.
    public static func newID() -> String {
        var g = SystemRandomNumberGenerator()
        var bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &g) }
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        var out = [UInt8]()
        out.reserveCapacity(36)
        for (start, end) in [(0, 4), (4, 6), (6, 8), (8, 10), (10, 16)] {
            if start > 0 { out.append(UInt8(ascii: "-")) }
            Hex.append(bytes[start..<end], to: &out)
        }
        return String(decoding: out, as: UTF8.self)
    }
}

import BinaryText
import Guardrails

/// One published model (SPEC §3). A value: the catalog is an array of these.
/// `sdkMin`/`sdkMax` keep the text as published; `sdkMinVersion`/`sdkMaxVersion` are parsed once.
public struct Release: Hashable, Sendable {
    public enum State: String, Sendable, CaseIterable {
        case active, paused, retired
    }

    public let id: String
    public let seq: Int64
    public let ext: String
    public let sha256: String
    public let size: Int64
    /// The file's chunk list (SPEC §14); nil for files published before v4 until backfilled.
    public internal(set) var chunks: ChunkListFile?
    /// Its packed file and patches (SPEC §16); nil until the derivation worker got to it.
    public internal(set) var transfer: TransferFiles?
    public private(set) var sdkMin: String
    public private(set) var sdkMax: String?
    public let channel: String
    public internal(set) var rolloutPercent: Int
    public internal(set) var state: State
    public internal(set) var label: String
    public let publishedAt: Timestamp
    public internal(set) var retiredAt: Timestamp?
    public internal(set) var fileDeletedAt: Timestamp?
    public let contentType: String
    /// The challenger's guard (SPEC §11.1), nil for an unguarded release.
    public internal(set) var guardPlan: GuardPlan?
    /// Device-class files (SPEC §3.1), in answer order; removed ones stay until GC.
    public internal(set) var variants: [Variant]

    public private(set) var sdkMinVersion: SDKVersion
    public private(set) var sdkMaxVersion: SDKVersion?

    /// `<id>.<ext>`: the file name under `models/` and the last segment of the download URL.
    public var file: String { "\(id).\(ext)" }

    /// Validates every field; the first violation is thrown as `invalid_parameter` naming it.
    public init(
        id: String, seq: Int64, ext: String, sha256: String, size: Int64, chunks: ChunkListFile? = nil,
        transfer: TransferFiles? = nil, sdkMin: String, sdkMax: String? = nil, channel: String = Release.defaultChannel,
        rolloutPercent: Int = 100, state: State = .active, label: String = "",
        publishedAt: Timestamp, retiredAt: Timestamp? = nil, fileDeletedAt: Timestamp? = nil,
        contentType: String? = nil, variants: [Variant] = [], guardPlan: GuardPlan? = nil
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
        self.id = id
        self.seq = seq
        self.ext = ext
        self.sha256 = sha256
        self.size = size
        self.chunks = chunks
        self.transfer = transfer
        self.sdkMin = sdkMin
        self.sdkMax = sdkMax
        self.channel = channel
        self.rolloutPercent = rolloutPercent
        self.state = state
        self.label = label
        self.publishedAt = publishedAt
        self.retiredAt = retiredAt
        self.fileDeletedAt = fileDeletedAt
        self.contentType = contentType
        self.guardPlan = guardPlan
        self.variants = variants
        self.sdkMinVersion = minV
        self.sdkMaxVersion = maxV
    }

    mutating func setSDKMax(_ text: String?) throws(CatalogError) {
        let (_, maxV) = try Release.validateRange(sdkMin: sdkMin, sdkMax: text)
        sdkMax = text
        sdkMaxVersion = maxV
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
    func guardStops(on patch: ReleasePatch) -> Bool {
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
    public static let maxLabelLength = 200
    public static let maxExtLength = 16

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
    public static func ext(fromFileName name: String) -> String? {
        let base = name.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? name
        guard let dot = base.firstIndex(of: ".") else { return nil }
        let ext = String(base[base.index(after: dot)...]).lowercased()
        // A yes/no question: an invalid extension is answered with nil.
        return (try? validateExt(ext)) != nil ? ext : nil
    }

    public static func validateID(_ id: String) throws(CatalogError) {
        // RFC 9562 textual form 8-4-4-4-12 hex; case kept as given for imported ids (§7.1).
        let b = Array(id.utf8)
        guard b.count == 36 else { throw .invalid("id", "must be a UUID (8-4-4-4-12 hex digits)") }
        for (i, c) in b.enumerated() {
            if i == 8 || i == 13 || i == 18 || i == 23 {
                guard c == UInt8(ascii: "-") else { throw .invalid("id", "must be a UUID (8-4-4-4-12 hex digits)") }
            } else {
                guard Hex.isLowercaseDigit(c) || (0x41...0x46).contains(c) else { throw .invalid("id", "must be a UUID (8-4-4-4-12 hex digits)") }
            }
        }
    }

    public static func validateExt(_ ext: String) throws(CatalogError) {
        // [a-z0-9]+(\.[a-z0-9]+)*, ≤ 16 chars
        let b = Array(ext.utf8)
        guard !b.isEmpty, b.count <= maxExtLength else { throw .invalid("ext", "must be 1–\(maxExtLength) characters") }
        var previousDot = true
        for c in b {
            if c == UInt8(ascii: ".") {
                guard !previousDot else { throw .invalid("ext", "must match [a-z0-9]+(\\.[a-z0-9]+)*") }
                previousDot = true
            } else if (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z")) || (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9")) {
                previousDot = false
            } else {
                throw .invalid("ext", "must match [a-z0-9]+(\\.[a-z0-9]+)*")
            }
        }
        guard !previousDot else { throw .invalid("ext", "must match [a-z0-9]+(\\.[a-z0-9]+)*") }
    }

    public static func validateChannel(_ channel: String) throws(CatalogError) {
        guard isName(channel) else { throw .invalid("channel", "must match [a-z0-9_-]{1,32}") }
    }

    /// `[a-z0-9_-]{1,32}`: channels, platforms and variant names.
    static func isName(_ s: String) -> Bool { NameRule.matches(s) }

    public static func validateRollout(_ percent: Int) throws(CatalogError) {
        guard (0...100).contains(percent) else { throw .invalid("rollout_percent", "must be an integer 0–100") }
    }

    public static func validateLabel(_ label: String) throws(CatalogError) {
        // Counted in Unicode scalars (code points), like JSON Schema's maxLength and every other
        // length in SPEC §4.2, not in grapheme clusters (which can hide any number of scalars).
        guard label.unicodeScalars.count <= maxLabelLength else { throw .invalid("label", "must be at most \(maxLabelLength) characters") }
        guard !label.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw .invalid("label", "must not contain control characters")
        }
    }

    public static func validateContentType(_ type: String) throws(CatalogError) {
        // It becomes a response header: printable ASCII only, something/something.
        let b = Array(type.utf8)
        guard (3...127).contains(b.count), b.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }), b.contains(UInt8(ascii: "/")) else {
            throw .invalid("content_type", "must be a media type like application/octet-stream")
        }
    }

    /// Live variant names are unique within a release (a removed one's name may be reused).
    static func validateVariantNames(_ variants: [Variant]) throws(CatalogError) {
        var names = Set<String>()
        for v in variants where v.isLive {
            guard names.insert(v.name).inserted else { throw .invalid("variants", "duplicate variant name \(v.name)") }
        }
    }

    static func validateRange(sdkMin: String, sdkMax: String?) throws(CatalogError) -> (SDKVersion, SDKVersion?) {
        guard let minV = SDKVersion(sdkMin) else { throw .invalid("sdk_min", "must be MAJOR[.MINOR[.PATCH]] with components 0–999999") }
        guard let sdkMax else { return (minV, nil) }
        guard let maxV = SDKVersion(sdkMax) else { throw .invalid("sdk_max", "must be MAJOR[.MINOR[.PATCH]] with components 0–999999") }
        // An empty range would be a release no client can ever get: refuse it rather than publish it.
        guard minV < maxV else { throw .invalid("sdk_max", "must be greater than sdk_min (\(sdkMin))") }
        return (minV, maxV)
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

/// The conditions a variant's device must meet (SPEC §3.1). Every condition set must hold; one
/// whose attribute the request lacks does not, so a request without attributes gets the
/// release's default file. Pure: parsed from `requires` text (JSON object or `k=v,…`), encoded
/// back as the catalog's JSON object.
public struct VariantRequirements: Hashable, Sendable {
    public private(set) var platform: [String]?
    public private(set) var minOS: String?
    public private(set) var minRAMMB: Int?
    public private(set) var devicePrefix: [String]?
    private var minOSVersion: SDKVersion?

    public static let keys = ["platform", "min_os", "min_ram_mb", "device_prefix"]

    public init(platform: [String]? = nil, minOS: String? = nil, minRAMMB: Int? = nil, devicePrefix: [String]? = nil) throws(CatalogError) {
        if let platform {
            guard !platform.isEmpty else { throw .invalid("requires.platform", "must list at least one platform") }
            for p in platform where !DeviceAttributes.isPlatform(p) {
                throw .invalid("requires.platform", "\(p) must match [a-z0-9_-]{1,32}")
            }
        }
        if let minOS {
            guard let v = SDKVersion(minOS) else { throw .invalid("requires.min_os", "\(minOS) must be MAJOR[.MINOR[.PATCH]] with components 0–999999") }
            minOSVersion = v
        }
        if let minRAMMB, !DeviceAttributes.ramRange.contains(minRAMMB) {
            throw .invalid("requires.min_ram_mb", "must be an integer 0–10000000")
        }
        if let devicePrefix {
            guard !devicePrefix.isEmpty else { throw .invalid("requires.device_prefix", "must list at least one prefix") }
            for d in devicePrefix where !DeviceAttributes.isDevice(d) {
                throw .invalid("requires.device_prefix", "\(d) must be 1–64 printable ASCII characters")
            }
        }
        self.platform = platform
        self.minOS = minOS
        self.minRAMMB = minRAMMB
        self.devicePrefix = devicePrefix
    }

    /// `requires` as given to the admin API or `modelctl variant add`: a JSON object (first
    /// non-blank character `{`) or `key=value` pairs split by `,` with list values split by `|`
    /// (`min_ram_mb=7000,platform=ios|ipados`). Unknown keys, repeated keys and bad values are
    /// `invalid_parameter` naming `requires.<key>`; an empty text means "no conditions" (which
    /// `VariantRequest` refuses).
    public init(parsing text: String) throws(CatalogError) {
        if text.first(where: { !$0.isWhitespace }) == "{" {
            try self.init(json: Array(text.utf8))
            return
        }
        var fields: [String: String] = [:]
        // An empty pair is refused rather than skipped: `device_prefix=iPhone16,` means a prefix
        // ending in ',', which only the JSON form can say.
        for pair in text.split(separator: ",", omittingEmptySubsequences: false) where !text.isEmpty {
            guard let eq = pair.firstIndex(of: "=") else { throw .invalid("requires", "\(pair) is not key=value") }
            let key = String(pair[..<eq]).trimmed
            guard Self.keys.contains(key) else { throw .invalid("requires.\(key)", "unknown condition; allowed: \(Self.keys.joined(separator: ", "))") }
            guard fields[key] == nil else { throw .invalid("requires.\(key)", "given twice") }
            fields[key] = String(pair[pair.index(after: eq)...]).trimmed
        }
        func list(_ key: String) -> [String]? {
            fields[key].map { $0.split(separator: "|", omittingEmptySubsequences: false).map { String($0).trimmed } }
        }
        var ram: Int?
        if let t = fields["min_ram_mb"] {
            guard let v = Int(t), String(v) == t else { throw .invalid("requires.min_ram_mb", "must be an integer 0–10000000") }
            ram = v
        }
        try self.init(platform: list("platform"), minOS: fields["min_os"], minRAMMB: ram, devicePrefix: list("device_prefix"))
    }

    /// The catalog form: `{"platform":["ios"],"min_os":"17.0","min_ram_mb":7000,"device_prefix":["iPhone16,"]}`.
    public init(json: [UInt8]) throws(CatalogError) {
        let dto = try decodeStrict(RequirementsDTO.self, from: json,
                                   otherwise: .invalid("requires", "must be a JSON object with \(Self.keys.joined(separator: ", "))"))
        try self.init(platform: dto.platform, minOS: dto.minOS, minRAMMB: dto.minRAMMB, devicePrefix: dto.devicePrefix)
    }

    /// Whether a device meets every condition (SPEC §3.1); a missing attribute fails its condition.
    public var isEmpty: Bool { platform == nil && minOS == nil && minRAMMB == nil && devicePrefix == nil }

    public func matches(_ device: DeviceAttributes) -> Bool {
        if let platform, !(device.platform.map { platform.contains($0) } ?? false) { return false }
        if let minOSVersion, !(device.os.map { $0 >= minOSVersion } ?? false) { return false }
        if let minRAMMB, !(device.ramMB.map { $0 >= minRAMMB } ?? false) { return false }
        if let devicePrefix, !(device.device.map { d in devicePrefix.contains { d.hasPrefix($0) } } ?? false) { return false }
        return true
    }

    func write(to w: inout JSONWriter) {
        w.beginObject()
        if let platform { w.key("platform"); w.stringArray(platform) }
        if let minOS { w.field("min_os", minOS) }
        if let minRAMMB { w.field("min_ram_mb", minRAMMB) }
        if let devicePrefix { w.key("device_prefix"); w.stringArray(devicePrefix) }
        w.endObject()
    }

    public var json: [UInt8] {
        var w = JSONWriter(capacity: 128)
        write(to: &w)
        return w.bytes
    }
}

/// Decodes the JSON form strictly: unknown keys and wrong types name the key.
struct RequirementsDTO: Decodable {
    var platform: [String]?
    var minOS: String?
    var minRAMMB: Int?
    var devicePrefix: [String]?

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: AnyKey.self)
        // Each `try?` below is a type probe turned into the error naming the field.
        for key in c.allKeys {
            let name = "requires." + key.stringValue
            switch key.stringValue {
            case "platform":
                guard let v = try? c.decode([String].self, forKey: key) else { throw CatalogError.invalid(name, "must be an array of strings") }
                platform = v
            case "min_os":
                guard let v = try? c.decode(String.self, forKey: key) else { throw CatalogError.invalid(name, "must be a version string") }
                minOS = v
            case "min_ram_mb":
                guard let v = try? c.decode(Int.self, forKey: key) else { throw CatalogError.invalid(name, "must be an integer 0–10000000") }
                minRAMMB = v
            case "device_prefix":
                guard let v = try? c.decode([String].self, forKey: key) else { throw CatalogError.invalid(name, "must be an array of strings") }
                devicePrefix = v
            default:
                throw CatalogError.invalid(name, "unknown condition; allowed: \(VariantRequirements.keys.joined(separator: ", "))")
            }
        }
    }
}

extension String {
    fileprivate var trimmed: String {
        String(drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
    }
}

import JSONSupport

/// The conditions a variant's device must meet (SPEC §3.1). Every condition set must hold; one
/// whose attribute the request lacks does not, so a request without attributes gets the
/// release's default file. Shared by the server and the client (SPEC §9.2); the catalog's
/// text forms live in ModelCatalog.
public struct VariantRequirements: Hashable, Sendable {
    public private(set) var platform: [String]?
    public private(set) var minOS: String?
    public private(set) var minRAMMB: Int?
    public private(set) var devicePrefix: [String]?
    /// Exact system-model version (SPEC §3.2).
    public private(set) var systemModel: String?
    private var minOSVersion: SDKVersion?

    public static let keys = ["platform", "min_os", "min_ram_mb", "device_prefix", "system_model"]

    public init(platform: [String]? = nil, minOS: String? = nil, minRAMMB: Int? = nil, devicePrefix: [String]? = nil, systemModel: String? = nil) throws(InvalidInput) {
        if let platform {
            guard !platform.isEmpty else { throw InvalidInput("requires.platform", "must list at least one platform") }
            for p in platform where !DeviceAttributes.isPlatform(p) {
                throw InvalidInput("requires.platform", "\(p) must match [a-z0-9_-]{1,32}")
            }
        }
        if let minOS {
            guard let v = SDKVersion(minOS) else { throw InvalidInput("requires.min_os", "\(minOS) must be MAJOR[.MINOR[.PATCH]] with components 0–999999") }
            minOSVersion = v
        }
        if let minRAMMB, !DeviceAttributes.ramRange.contains(minRAMMB) {
            throw InvalidInput("requires.min_ram_mb", "must be an integer 0–10000000")
        }
        if let devicePrefix {
            guard !devicePrefix.isEmpty else { throw InvalidInput("requires.device_prefix", "must list at least one prefix") }
            for d in devicePrefix where !DeviceAttributes.isDevice(d) {
                throw InvalidInput("requires.device_prefix", "\(d) must be 1–64 printable ASCII characters")
            }
        }
        if let systemModel, !DeviceAttributes.isSystemModel(systemModel) {
            throw InvalidInput("requires.system_model", "\(systemModel) must match [A-Za-z0-9._-]{1,32}")
        }
        self.systemModel = systemModel
        self.platform = platform
        self.minOS = minOS
        self.minRAMMB = minRAMMB
        self.devicePrefix = devicePrefix
    }

    public var isEmpty: Bool { platform == nil && minOS == nil && minRAMMB == nil && devicePrefix == nil && systemModel == nil }

    /// Whether a device meets every condition (SPEC §3.1); a missing attribute fails its condition.
    public func matches(_ device: DeviceAttributes) -> Bool {
        if let platform, !(device.platform.map { platform.contains($0) } ?? false) { return false }
        if let minOSVersion, !(device.os.map { $0 >= minOSVersion } ?? false) { return false }
        if let minRAMMB, !(device.ramMB.map { $0 >= minRAMMB } ?? false) { return false }
        if let devicePrefix, !(device.device.map { d in devicePrefix.contains { d.hasPrefix($0) } } ?? false) { return false }
        if let systemModel, device.systemModel != systemModel { return false }
        return true
    }
}

extension VariantRequirements: Decodable {
    /// The catalog and rules form `{"platform":[…],"min_os":…,"min_ram_mb":…,"device_prefix":[…]}`,
    /// strictly: an unknown key or a wrong type throws `InvalidInput` naming `requires.<key>`.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: AnyKey.self)
        var platform: [String]?, minOS: String?, minRAMMB: Int?, devicePrefix: [String]?, systemModel: String?
        for key in c.allKeys {
            let name = "requires." + key.stringValue
            switch key.stringValue {
            case "platform":
                guard let v = try? c.decode([String].self, forKey: key) else { throw InvalidInput(name, "must be an array of strings") }
                platform = v
            case "min_os":
                guard let v = try? c.decode(String.self, forKey: key) else { throw InvalidInput(name, "must be a version string") }
                minOS = v
            case "min_ram_mb":
                guard let v = try? c.decode(Int.self, forKey: key) else { throw InvalidInput(name, "must be an integer 0–10000000") }
                minRAMMB = v
            case "device_prefix":
                guard let v = try? c.decode([String].self, forKey: key) else { throw InvalidInput(name, "must be an array of strings") }
                devicePrefix = v
            case "system_model":
                guard let v = try? c.decode(String.self, forKey: key) else { throw InvalidInput(name, "must be a string") }
                systemModel = v
            default:
                throw InvalidInput(name, "unknown condition; allowed: \(VariantRequirements.keys.joined(separator: ", "))")
            }
        }
        try self.init(platform: platform, minOS: minOS, minRAMMB: minRAMMB, devicePrefix: devicePrefix, systemModel: systemModel)
    }

    /// The same form, the conditions set in `keys` order.
    package func write(to w: inout JSONWriter) {
        w.beginObject()
        if let platform { w.key("platform"); w.stringArray(platform) }
        if let minOS { w.field("min_os", minOS) }
        if let minRAMMB { w.field("min_ram_mb", minRAMMB) }
        if let devicePrefix { w.key("device_prefix"); w.stringArray(devicePrefix) }
        if let systemModel { w.field("system_model", systemModel) }
        w.endObject()
    }
}

/// Any key: strict decoders (here and the catalog's) list the keys themselves so an unknown one
/// can be named.
package struct AnyKey: CodingKey {
    package var stringValue: String
    package var intValue: Int? { nil }
    package init(stringValue: String) { self.stringValue = stringValue }
    package init?(intValue: Int) { nil }
}

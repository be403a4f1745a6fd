/// What an update check says about its device (SPEC §3.1): `platform`, `os`, `ram_mb`,
/// `device`, each optional. Parsing names the first invalid parameter.
public struct DeviceAttributes: Hashable, Sendable {
    public var platform: String?
    public var os: SDKVersion?
    public var ramMB: Int?
    public var device: String?

    public static let none = DeviceAttributes()
    static let ramRange = 0...10_000_000

    public init(platform: String? = nil, os: SDKVersion? = nil, ramMB: Int? = nil, device: String? = nil) {
        self.platform = platform
        self.os = os
        self.ramMB = ramMB
        self.device = device
    }

    /// From query values (nil = absent); an invalid one throws `invalid_parameter` naming it.
    public init(query value: (String) -> String?) throws(CatalogError) {
        if let p = value("platform") {
            guard Self.isPlatform(p) else { throw .invalid("platform", "must match [a-z0-9_-]{1,32}") }
            platform = p
        }
        if let o = value("os") {
            guard let v = SDKVersion(o) else { throw .invalid("os", "must be MAJOR[.MINOR[.PATCH]] with components 0–999999") }
            os = v
        }
        if let r = value("ram_mb") {
            guard let v = Int(r), String(v) == r, Self.ramRange.contains(v) else { throw .invalid("ram_mb", "must be an integer 0–10000000") }
            ramMB = v
        }
        if let d = value("device") {
            guard Self.isDevice(d) else { throw .invalid("device", "must be 1–64 printable ASCII characters") }
            device = d
        }
    }

    public var isEmpty: Bool { platform == nil && os == nil && ramMB == nil && device == nil }

    static func isPlatform(_ s: String) -> Bool { Release.isName(s) }

    static func isDevice(_ s: String) -> Bool {
        let b = s.utf8
        return (1...64).contains(b.count) && b.allSatisfy { (0x20...0x7e).contains($0) }
    }
}

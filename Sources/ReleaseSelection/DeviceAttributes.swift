/// What an update check says about its device (SPEC §3.1, §3.2): `platform`, `os`, `ram_mb`,
/// `device`, `system_model`, each optional. The server parses them from its query (ModelCatalog), the client
/// reads them from the OS or its configuration.
public struct DeviceAttributes: Hashable, Sendable {
    public var platform: String?
    public var os: SDKVersion?
    public var ramMB: Int?
    public var device: String?
    /// The OS-provided model's version (SPEC §3.2: Apple Foundation Models), `[A-Za-z0-9._-]{1,32}`.
    public var systemModel: String?

    public static let none = DeviceAttributes()
    package static let ramRange = 0...10_000_000

    public init(platform: String? = nil, os: SDKVersion? = nil, ramMB: Int? = nil, device: String? = nil, systemModel: String? = nil) {
        self.platform = platform
        self.os = os
        self.ramMB = ramMB
        self.device = device
        self.systemModel = systemModel
    }

    /// From query values or CLI flags (nil = absent); an invalid one throws naming it.
    public init(parsing platform: String?, os: String?, ramMB: String?, device: String?, systemModel: String? = nil) throws(InvalidInput) {
        if let platform {
            guard Self.isPlatform(platform) else { throw InvalidInput("platform", "must match [a-z0-9_-]{1,32}") }
            self.platform = platform
        }
        if let os {
            guard let v = SDKVersion(os) else { throw InvalidInput("os", "must be MAJOR[.MINOR[.PATCH]] with components 0–999999") }
            self.os = v
        }
        if let ramMB {
            guard let v = Self.ramMB(ramMB) else { throw InvalidInput("ram_mb", "must be an integer 0–10000000") }
            self.ramMB = v
        }
        if let device {
            guard Self.isDevice(device) else { throw InvalidInput("device", "must be 1–64 printable ASCII characters") }
            self.device = device
        }
        if let systemModel {
            guard Self.isSystemModel(systemModel) else { throw InvalidInput("system_model", "must match [A-Za-z0-9._-]{1,32}") }
            self.systemModel = systemModel
        }
    }

    package static func isSystemModel(_ s: String) -> Bool {
        s.withUTF8Bytes { b in
            (1...32).contains(b.count) && b.allSatisfy {
                ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z")) || ($0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z"))
                    || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-")
            }
        }
    }

    /// Canonical decimal only (no sign, no leading zeros but "0"), within `ramRange`.
    package static func ramMB(_ s: String) -> Int? {
        s.withUTF8Bytes { b in
            guard (1...8).contains(b.count), b.allSatisfy({ (48...57).contains($0) }), b.count == 1 || b[0] != 48 else { return nil }
            let v = b.reduce(0) { $0 * 10 + Int($1 - 48) }
            return ramRange.contains(v) ? v : nil
        }
    }

    public var isEmpty: Bool { platform == nil && os == nil && ramMB == nil && device == nil && systemModel == nil }

    package static func isPlatform(_ s: String) -> Bool { NameRule.matches(s) }

    package static func isDevice(_ s: String) -> Bool {
        s.withUTF8Bytes { b in (1...64).contains(b.count) && b.allSatisfy { (0x20...0x7e).contains($0) } }
    }
}

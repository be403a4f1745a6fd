/// One table of release field values (SPEC §3) that every holder of the release contract must
/// judge alike: the server's publish path, modelctl's flag checks and the client's checks of
/// what it decodes all run it (issue 35 item 8: the three rule sets had drifted apart).
public enum ReleaseFieldCases {
    public enum Field: String, Sendable, CaseIterable {
        case id, channel, label, sdkMin = "sdk_min", sdkMax = "sdk_max"
        // SPEC §3.2, named as the admin API's query parameters.
        case baseChannel = "base_channel", baseSHA256 = "base_sha256", displayName = "display_name"
        case licenseSPDX = "license_spdx", licenseURL = "license_url", licenseSHA256 = "license_sha256", minRAMMB = "min_ram_mb"
    }

    public struct Case: Sendable, CustomStringConvertible {
        public let field: Field
        public let value: String
        public let valid: Bool
        /// Refused only where a release is published (a reserved name); readers accept it.
        public let publishingOnly: Bool

        init(field: Field, value: String, valid: Bool, publishingOnly: Bool = false) {
            self.field = field
            self.value = value
            self.valid = valid
            self.publishingOnly = publishingOnly
        }

        public var description: String { "\(field.rawValue)=\(value.debugDescription) (\(valid ? "valid" : "invalid"))" }
    }

    /// Values with sdk_min 2.3 (for sdk_max cases) and sdk_max absent (for sdk_min cases).
    public static let all: [Case] = [
        Case(field: .id, value: "80a2c3d1-82d1-4cf8-9d35-d7f257c4c31e", valid: true),
        Case(field: .id, value: "80A2C3D1-82D1-4CF8-9D35-D7F257C4C31E", valid: true),
        Case(field: .id, value: "80a2c3d1-82d1-4cf8-9d35-d7f257c4c31", valid: false),
        Case(field: .id, value: "80a2c3d1x82d1-4cf8-9d35-d7f257c4c31e", valid: false),
        Case(field: .id, value: "g0a2c3d1-82d1-4cf8-9d35-d7f257c4c31e", valid: false),
        Case(field: .channel, value: "stable", valid: true),
        Case(field: .channel, value: "llm-lora_2", valid: true),
        Case(field: .channel, value: String(repeating: "a", count: 32), valid: true),
        Case(field: .channel, value: String(repeating: "a", count: 33), valid: false),
        Case(field: .channel, value: "Stable", valid: false),
        Case(field: .channel, value: "", valid: false),
        Case(field: .channel, value: "a b", valid: false),
        Case(field: .channel, value: "index", valid: false, publishingOnly: true),
        Case(field: .label, value: "", valid: true),
        Case(field: .label, value: "v12 — ранкер 🚀", valid: true),
        Case(field: .label, value: String(repeating: "x", count: 200), valid: true),
        Case(field: .label, value: String(repeating: "x", count: 201), valid: false),
        // 150 Characters but 300 Unicode scalars: lengths count scalars.
        Case(field: .label, value: String(repeating: "e\u{301}", count: 150), valid: false),
        Case(field: .label, value: String(repeating: "e\u{301}", count: 100), valid: true),
        Case(field: .label, value: "line\nbreak", valid: false),
        Case(field: .label, value: "tab\there", valid: false),
        Case(field: .label, value: "del\u{7F}", valid: false),
        Case(field: .sdkMin, value: "2", valid: true),
        Case(field: .sdkMin, value: "2.10.999999", valid: true),
        Case(field: .sdkMin, value: "2.1000000", valid: false),
        Case(field: .sdkMin, value: "1.2.3.4", valid: false),
        Case(field: .sdkMin, value: "v2", valid: false),
        Case(field: .sdkMin, value: "", valid: false),
        Case(field: .sdkMax, value: "3.0", valid: true),
        Case(field: .sdkMax, value: "2.3.1", valid: true),
        Case(field: .sdkMax, value: "2.3", valid: false),
        Case(field: .sdkMax, value: "2.2", valid: false),
        Case(field: .sdkMax, value: "x", valid: false),
        Case(field: .baseChannel, value: "llm", valid: true),
        Case(field: .baseChannel, value: "LLM", valid: false),
        Case(field: .baseChannel, value: "", valid: false),
        Case(field: .baseSHA256, value: String(repeating: "ab", count: 32), valid: true),
        Case(field: .baseSHA256, value: String(repeating: "AB", count: 32), valid: false),
        Case(field: .baseSHA256, value: String(repeating: "a", count: 63), valid: false),
        Case(field: .displayName, value: "Llama 3.2 1B — Q4", valid: true),
        Case(field: .displayName, value: String(repeating: "n", count: 100), valid: true),
        Case(field: .displayName, value: String(repeating: "n", count: 101), valid: false),
        Case(field: .displayName, value: "", valid: false),
        Case(field: .displayName, value: "two\nlines", valid: false),
        Case(field: .licenseSPDX, value: "Apache-2.0", valid: true),
        Case(field: .licenseSPDX, value: "LicenseRef-acme.1+", valid: true),
        Case(field: .licenseSPDX, value: "MIT OR Apache", valid: false),
        Case(field: .licenseSPDX, value: String(repeating: "A", count: 65), valid: false),
        Case(field: .licenseURL, value: "https://example.com/LICENSE.txt", valid: true),
        Case(field: .licenseURL, value: "ftp://example.com/LICENSE", valid: false),
        Case(field: .licenseURL, value: "https://example.com/a b", valid: false),
        Case(field: .licenseURL, value: "https://", valid: false),
        Case(field: .licenseSHA256, value: String(repeating: "0f", count: 32), valid: true),
        Case(field: .licenseSHA256, value: "0f", valid: false),
        Case(field: .minRAMMB, value: "0", valid: true),
        Case(field: .minRAMMB, value: "10000000", valid: true),
        Case(field: .minRAMMB, value: "10000001", valid: false),
    ]

    /// A release's fields, each case's one changed in an otherwise valid set; SPEC §3.2's are
    /// nil unless the case is about them (a base comes whole: the other half is valid).
    public struct Fields: Sendable {
        public var id = "80a2c3d1-82d1-4cf8-9d35-d7f257c4c31e", channel = "stable", label = "v1", sdkMin = "2.3"
        public var sdkMax: String?
        public var baseChannel: String?, baseSHA256: String?, displayName: String?
        public var licenseSPDX: String?, licenseURL: String?, licenseSHA256: String?, minRAMMB: String?

        /// As the admin API's query parameters (SPEC §3.2 names), `ext` included.
        public var parameters: [String: String] {
            var p = ["id": id, "channel": channel, "label": label, "sdk_min": sdkMin, "ext": "bin"]
            p["sdk_max"] = sdkMax
            p["base_channel"] = baseChannel
            p["base_sha256"] = baseSHA256
            p["display_name"] = displayName
            p["license_spdx"] = licenseSPDX
            p["license_url"] = licenseURL
            p["license_sha256"] = licenseSHA256
            p["min_ram_mb"] = minRAMMB
            return p
        }
    }

    /// The case's field in a release that is otherwise valid.
    public static func fields(for c: Case) -> Fields {
        var f = Fields()
        switch c.field {
        case .id: f.id = c.value
        case .channel: f.channel = c.value
        case .label: f.label = c.value
        case .sdkMin: f.sdkMin = c.value
        case .sdkMax: f.sdkMax = c.value
        case .baseChannel: (f.baseChannel, f.baseSHA256) = (c.value, String(repeating: "cd", count: 32))
        case .baseSHA256: (f.baseChannel, f.baseSHA256) = ("llm", c.value)
        case .displayName: f.displayName = c.value
        case .licenseSPDX: f.licenseSPDX = c.value
        case .licenseURL: f.licenseURL = c.value
        case .licenseSHA256: f.licenseSHA256 = c.value
        case .minRAMMB: f.minRAMMB = c.value
        }
        return f
    }


}

import JSONSupport

/// What a device may show and record before a download (SPEC §3.2): the licence of the
/// weights, as an SPDX identifier, a URL of its text and that text's SHA-256 (so an app can
/// require the user's acceptance of exactly that text). Each member optional, at least one set.
public struct ReleaseLicense: Hashable, Sendable, Codable {
    public let spdx: String?
    public let url: String?
    public let sha256: String?

    public init(spdx: String? = nil, url: String? = nil, sha256: String? = nil) throws(InvalidInput) {
        guard spdx != nil || url != nil || sha256 != nil else {
            throw InvalidInput("license", "needs at least one of spdx, url, sha256")
        }
        if let spdx { try ReleaseFields.checkSPDX(spdx) }
        if let url { try ReleaseFields.checkLicenseURL(url) }
        if let sha256 { try ReleaseFields.checkSHA256(sha256, field: "license.sha256") }
        self.spdx = spdx
        self.url = url
        self.sha256 = sha256
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: AnyKey.self)
        var values: [String: String] = [:]
        for key in c.allKeys {
            guard ["spdx", "url", "sha256"].contains(key.stringValue) else {
                throw InvalidInput("license." + key.stringValue, "unknown key; allowed: spdx, url, sha256")
            }
            guard let v = try? c.decode(String.self, forKey: key) else { throw InvalidInput("license." + key.stringValue, "must be a string") }
            values[key.stringValue] = v
        }
        try self.init(spdx: values["spdx"], url: values["url"], sha256: values["sha256"])
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: AnyKey.self)
        try c.encodeIfPresent(spdx, forKey: AnyKey(stringValue: "spdx"))
        try c.encodeIfPresent(url, forKey: AnyKey(stringValue: "url"))
        try c.encodeIfPresent(sha256, forKey: AnyKey(stringValue: "sha256"))
    }

    package func write(to w: inout JSONWriter) {
        w.beginObject()
        if let spdx { w.field("spdx", spdx) }
        if let url { w.field("url", url) }
        if let sha256 { w.field("sha256", sha256) }
        w.endObject()
    }
}

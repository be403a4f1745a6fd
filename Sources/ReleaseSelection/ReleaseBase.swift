import JSONSupport

/// The model an adapter release applies on top of (SPEC §3.2): the file with SHA-256 `sha256`
/// installed from channel `channel` (a release of another channel, or a file an app bundles).
public struct ReleaseBase: Hashable, Sendable, Codable {
    public let channel: String
    public let sha256: String

    public init(channel: String, sha256: String) throws(InvalidInput) {
        do throws(InvalidInput) { try ReleaseFields.checkChannel(channel) } catch {
            throw InvalidInput("base.channel", error.message)
        }
        try ReleaseFields.checkSHA256(sha256, field: "base.sha256")
        self.channel = channel
        self.sha256 = sha256
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: AnyKey.self)
        for key in c.allKeys where key.stringValue != "channel" && key.stringValue != "sha256" {
            throw InvalidInput("base." + key.stringValue, "unknown key; allowed: channel, sha256")
        }
        guard let channel = try? c.decode(String.self, forKey: AnyKey(stringValue: "channel")) else {
            throw InvalidInput("base.channel", "is required (a string)")
        }
        guard let sha256 = try? c.decode(String.self, forKey: AnyKey(stringValue: "sha256")) else {
            throw InvalidInput("base.sha256", "is required (a string)")
        }
        try self.init(channel: channel, sha256: sha256)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: AnyKey.self)
        try c.encode(channel, forKey: AnyKey(stringValue: "channel"))
        try c.encode(sha256, forKey: AnyKey(stringValue: "sha256"))
    }

    package func write(to w: inout JSONWriter) {
        w.beginObject()
        w.field("channel", channel)
        w.field("sha256", sha256)
        w.endObject()
    }
}

/// The bases a check reports (SPEC §3.2): `base=<sha256>` on `/latest` names a SHA-256 of any
/// channel; `installed` of `POST /check` (§17.2) and the client's own installed models in rules
/// mode name one SHA-256 per channel. A release with a base is eligible only when its base is
/// among them; everything else ignores them.
public struct ReportedBases: Hashable, Sendable {
    /// SHA-256s reported without a channel (`base=` on /latest).
    public var anyChannel: Set<String>
    /// The installed model's SHA-256 per channel.
    public var installed: [String: String]

    public static let none = ReportedBases()

    public init(anyChannel: Set<String> = [], installed: [String: String] = [:]) {
        self.anyChannel = anyChannel
        self.installed = installed
    }

    /// From `base=` of a query (nil = absent); an invalid one throws naming `base`.
    public init(parsingBase text: String?) throws(InvalidInput) {
        self.init()
        guard let text else { return }
        try ReleaseFields.checkSHA256(text, field: "base")
        anyChannel = [text]
    }

    public var isEmpty: Bool { anyChannel.isEmpty && installed.isEmpty }

    public func reports(_ base: ReleaseBase) -> Bool {
        anyChannel.contains(base.sha256) || installed[base.channel] == base.sha256
    }
}

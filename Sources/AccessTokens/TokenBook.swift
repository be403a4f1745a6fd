import BinaryText
import CivilTime
import ContentDigest
import JSONSupport

/// The named tokens (SPEC §15.1) as a value: what `data/tokens.json` holds, the changes made to
/// it, and the check of a presented secret. Pure: the file is `TokenStore`'s, time is passed in.
public struct TokenBook: Sendable, Equatable {
    /// The configured admin token's name: it lives in the config, never in this book.
    public static let adminName = "admin"
    static let format = 1

    public private(set) var tokens: [NamedToken]

    public init(tokens: [NamedToken] = []) { self.tokens = tokens }

    // MARK: changes

    /// Adds a token for the secret whose SHA-256 is `secretSHA256`; `expiresDays` nil: never.
    public mutating func add(name: String, role: Role, secretSHA256: String, nowMillis: Int64,
                             expiresDays: Int?) throws(TokenBookError) -> NamedToken {
        guard NamedToken.isValidName(name) else {
            throw TokenBookError(.invalid, "name: \(name.debugDescription) must be 1-64 characters of [A-Za-z0-9._@-]")
        }
        if name == Self.adminName {
            throw TokenBookError(.nameInUse, "admin is the configured admin token (admin_token / admin_token_file)")
        }
        if tokens.contains(where: { $0.name == name }) { throw TokenBookError(.nameInUse, "a token named \(name) exists") }
        if let expiresDays, !(1...36_500).contains(expiresDays) {
            throw TokenBookError(.invalid, "expires_days: must be 1-36500, got \(expiresDays)")
        }
        let token = NamedToken(name: name, role: role, sha256: secretSHA256, createdMillis: nowMillis,
                               expiresMillis: expiresDays.map { nowMillis + Int64($0) * 86_400_000 })
        tokens.append(token)
        return token
    }

    /// Removes the token: from then on its secret opens nothing, and sessions it opened end.
    public mutating func revoke(_ name: String) throws(TokenBookError) -> NamedToken {
        if name == Self.adminName {
            throw TokenBookError(.invalid, "admin is the configured admin token: change admin_token / admin_token_file to replace it")
        }
        guard let i = tokens.firstIndex(where: { $0.name == name }) else { throw TokenBookError(.notFound, "no token named \(name)") }
        return tokens.remove(at: i)
    }

    /// Records uses (token SHA-256 → when), keeping the later time; a use of a token revoked in
    /// the meantime changes nothing. True when anything changed.
    public mutating func recordUses(_ uses: [String: Int64]) -> Bool {
        var changed = false
        for i in tokens.indices {
            guard let at = uses[tokens[i].sha256], at > (tokens[i].lastUsedMillis ?? .min) else { continue }
            tokens[i].lastUsedMillis = at
            changed = true
        }
        return changed
    }

    // MARK: checking a secret

    /// The live token whose secret is `secret`. Its SHA-256 is compared with every entry's in
    /// constant time (SPEC §15.1), so timing tells nothing about the stored hashes.
    public func authenticate(secret: String, nowMillis: Int64) -> NamedToken? {
        let offered = Array(Self.digest(secret).utf8)
        var found: NamedToken?
        for token in tokens where ConstantTime.equal(offered, Array(token.sha256.utf8)) {
            found = token
        }
        return found.flatMap { $0.isLive(at: nowMillis) ? $0 : nil }
    }

    /// True when the token `principal` signed in with is still in the book and live.
    public func stillValid(_ principal: Principal, nowMillis: Int64) -> Bool {
        guard let sha = principal.tokenSHA256 else { return true }   // the configured admin token
        return tokens.contains { $0.sha256 == sha && $0.name == principal.name && $0.isLive(at: nowMillis) }
    }

    /// A new secret: 256 random bits as 64 hex digits (SPEC §15.1: ≥ 128 bits).
    public static func newSecret() -> String { Hex.random(bytes: 32) }

    /// What the book keeps of a secret: its SHA-256 in lowercase hex.
    public static func digest(_ secret: String) -> String { SHA256Hex.of(Array(secret.utf8)) }
}

// MARK: the file's JSON

extension TokenBook {
    /// `{"format":1,"tokens":[{"name","role","sha256","created","expires","last_used"}]}`.
    public var json: [UInt8] {
        var w = JSONWriter(capacity: 128 + tokens.count * 256)
        w.beginObject()
        w.field("format", Self.format)
        w.key("tokens")
        w.beginArray()
        for t in tokens {
            w.beginObject()
            w.field("name", t.name)
            w.field("role", t.role.rawValue)
            w.field("sha256", t.sha256)
            Self.writeListing(t, into: &w)
            w.endObject()
        }
        w.endArray()
        w.endObject()
        return w.line()
    }

    /// `tokens list --json` (SPEC §15.1): `[{"name","role","created","expires","last_used"}]`, no hash.
    public var listingJSON: [UInt8] {
        var w = JSONWriter(capacity: 64 + tokens.count * 160)
        w.beginArray()
        for t in tokens { w.raw(Self.listing(t)) }
        w.endArray()
        return w.bytes
    }

    /// One entry of the listing.
    public static func listing(_ t: NamedToken) -> [UInt8] {
        var w = JSONWriter(capacity: 160)
        w.beginObject()
        w.field("name", t.name)
        w.field("role", t.role.rawValue)
        writeListing(t, into: &w)
        w.endObject()
        return w.bytes
    }

    private static func writeListing(_ t: NamedToken, into w: inout JSONWriter) {
        w.field("created", RFC3339.format(milliseconds: t.createdMillis))
        w.key("expires")
        if let e = t.expiresMillis { w.string(RFC3339.format(milliseconds: e)) } else { w.null() }
        w.key("last_used")
        if let u = t.lastUsedMillis { w.string(RFC3339.format(milliseconds: u)) } else { w.null() }
    }

    /// Parses the file; anything but the shape above (a foreign or hand-broken file) is refused
    /// whole, so a half-understood file never opens or closes the wrong door.
    public init(json bytes: [UInt8]) throws(TokenBookError) {
        let root: JSONNode
        do { root = try JSONReader.parse(bytes) } catch { throw TokenBookError(.storage, error.description) }
        guard root.value["format"]?.numberValue == Double(Self.format), case .array(let entries)? = root.value["tokens"] else {
            throw TokenBookError(.storage, "expected {\"format\":1,\"tokens\":[…]}")
        }
        var tokens: [NamedToken] = []
        for (n, entry) in entries.enumerated() {
            let e = entry.value
            guard let name = e["name"]?.stringValue, NamedToken.isValidName(name), name != Self.adminName,
                  !tokens.contains(where: { $0.name == name }),
                  let role = e["role"]?.stringValue.flatMap(Role.init(rawValue:)),
                  let sha = e["sha256"]?.stringValue, Hex.isLowercase(sha, bytes: 32),
                  let created = e["created"]?.stringValue.flatMap(RFC3339.parse) else {
                throw TokenBookError(.storage, "tokens[\(n)] is not a valid token entry")
            }
            tokens.append(NamedToken(name: name, role: role, sha256: sha, createdMillis: created,
                                     expiresMillis: try Self.optionalTime(e["expires"], "tokens[\(n)].expires"),
                                     lastUsedMillis: try Self.optionalTime(e["last_used"], "tokens[\(n)].last_used")))
        }
        self.tokens = tokens
    }

    /// An RFC 3339 time, or nil for null or absent.
    private static func optionalTime(_ v: JSONValue?, _ field: String) throws(TokenBookError) -> Int64? {
        guard let v, !isNull(v) else { return nil }
        guard let ms = v.stringValue.flatMap(RFC3339.parse) else { throw TokenBookError(.storage, "\(field) is not an RFC 3339 time") }
        return ms
    }

    private static func isNull(_ v: JSONValue) -> Bool {
        if case .null = v { return true }
        return false
    }
}

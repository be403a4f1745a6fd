/// One entry of `data/tokens.json` (SPEC §15.1): never the secret, only its SHA-256.
public struct NamedToken: Sendable, Equatable {
    public var name: String
    public var role: Role
    /// Lowercase hex SHA-256 of the secret.
    public var sha256: String
    public var createdMillis: Int64
    public var expiresMillis: Int64?
    public var lastUsedMillis: Int64?

    public init(name: String, role: Role, sha256: String, createdMillis: Int64, expiresMillis: Int64? = nil, lastUsedMillis: Int64? = nil) {
        self.name = name
        self.role = role
        self.sha256 = sha256
        self.createdMillis = createdMillis
        self.expiresMillis = expiresMillis
        self.lastUsedMillis = lastUsedMillis
    }

    public func isLive(at nowMillis: Int64) -> Bool { expiresMillis.map { nowMillis < $0 } ?? true }

    public var principal: Principal { Principal(name: name, role: role, tokenSHA256: sha256) }

    /// `[A-Za-z0-9._@-]{1,64}`: names go into audit lines, URLs and pages as they are.
    public static func isValidName(_ name: String) -> Bool {
        (1...64).contains(name.utf8.count) && name.utf8.allSatisfy { c in
            (c >= 0x30 && c <= 0x39) || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x7A) || c == 0x2E || c == 0x5F || c == 0x40 || c == 0x2D
        }
    }
}

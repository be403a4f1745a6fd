/// SPEC §15.1's roles, each allowed everything the one before it is: a viewer reads, a
/// publisher also changes releases, an admin also manages tokens.
public enum Role: String, Sendable, CaseIterable, Comparable {
    case viewer, publisher, admin

    public static func < (a: Role, b: Role) -> Bool { a.rank < b.rank }

    private var rank: Int {
        switch self {
        case .viewer: 0
        case .publisher: 1
        case .admin: 2
        }
    }
}

/// Who a request comes from once its credential checked out: the token's name (the audit's
/// `actor`), its role, and which secret it was (nil: the configured admin token), so a session
/// opened with a token ends when that token is revoked, even if its name is given out again.
public struct Principal: Sendable, Equatable {
    public let name: String
    public let role: Role
    public let tokenSHA256: String?

    public init(name: String, role: Role, tokenSHA256: String?) {
        self.name = name
        self.role = role
        self.tokenSHA256 = tokenSHA256
    }

    /// SPEC §15.1: the configured admin token is the token `admin`, role admin.
    public static let configuredAdmin = Principal(name: TokenBook.adminName, role: .admin, tokenSHA256: nil)
}

import AccessTokens
import BinaryText
import ContentDigest
import Synchronization

/// One signed-in browser (SPEC §15): who signed in (SPEC §15.1: the token's name and role), its
/// CSRF token, when it ends, and a short handle that names it in the audit log without being a
/// credential.
public struct ConsoleSession: Sendable, Equatable {
    public let principal: Principal
    public let csrfToken: String
    public let expiresAtMillis: Int64
    /// The first 12 hex digits of SHA-256(cookie): lets an auditor tell sessions apart.
    public let handle: String

    public init(principal: Principal, csrfToken: String, expiresAtMillis: Int64, handle: String) {
        self.principal = principal
        self.csrfToken = csrfToken
        self.expiresAtMillis = expiresAtMillis
        self.handle = handle
    }
}

/// The server-side session table. Cookies are 256 random bits; the table is keyed by their
/// SHA-256, so neither a memory dump nor a hash-table timing difference hands out a live cookie.
/// Sessions live in this process only: a restart signs everyone out (docs/console.md).
public final class ConsoleSessions: Sendable {
    public let lifetimeMillis: Int64
    /// A bound on memory against a flood of sign-ins; past it the oldest session is dropped.
    public static let maxSessions = 10_000
    private let table = Mutex<[String: ConsoleSession]>([:])

    public init(lifetimeMillis: Int64) { self.lifetimeMillis = lifetimeMillis }

    /// A new session for `principal` and the cookie value that names it.
    public func create(now: Int64, principal: Principal) -> (cookie: String, session: ConsoleSession) {
        let cookie = Hex.random(bytes: 32)
        let key = Self.key(cookie)
        let session = ConsoleSession(principal: principal, csrfToken: Hex.random(bytes: 32), expiresAtMillis: now + lifetimeMillis,
                                     handle: String(key.prefix(12)))
        table.withLock { sessions in
            if sessions.count >= Self.maxSessions {
                sessions = sessions.filter { $0.value.expiresAtMillis > now }
                if sessions.count >= Self.maxSessions,
                   let oldest = sessions.min(by: { $0.value.expiresAtMillis < $1.value.expiresAtMillis }) {
                    sessions[oldest.key] = nil
                }
            }
            sessions[key] = session
        }
        return (cookie, session)
    }

    /// The live session a cookie names; an expired one is forgotten.
    public func session(cookie: String?, now: Int64) -> ConsoleSession? {
        guard let cookie, Hex.isLowercase(cookie, bytes: 32) else { return nil }
        let key = Self.key(cookie)
        return table.withLock { sessions in
            guard let s = sessions[key] else { return nil }
            if s.expiresAtMillis <= now { sessions[key] = nil; return nil }
            return s
        }
    }

    public func end(cookie: String) {
        _ = table.withLock { $0.removeValue(forKey: Self.key(cookie)) }
    }

    public var count: Int { table.withLock { $0.count } }

    private static func key(_ cookie: String) -> String { SHA256Hex.of(Array(cookie.utf8)) }
}

/// Constant-time comparison of a presented secret (CSRF token) with the expected one.
public enum SecretCompare {
    public static func equal(_ offered: String?, _ expected: String) -> Bool {
        guard let offered else { return false }
        return ConstantTime.equal(Array(offered.utf8), Array(expected.utf8))
    }
}

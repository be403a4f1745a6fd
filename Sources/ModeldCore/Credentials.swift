import AccessTokens
import ModeldConfig

/// Every secret that opens the admin API and the console (SPEC §15.1): the configured admin
/// token, which is the token `admin` with role admin, and the named tokens of `data/tokens.json`.
struct Credentials: Sendable {
    let adminToken: AdminToken
    let named: TokenCache

    /// Who `secret` belongs to, or nil; constant-time comparisons throughout.
    func principal(for secret: String, nowMillis: Int64) -> Principal? {
        if adminToken.matches(token: secret) { return .configuredAdmin }
        return named.authenticate(secret: secret, nowMillis: nowMillis)
    }

    /// False once the token a session was opened with is revoked or expired.
    func stillValid(_ principal: Principal, nowMillis: Int64) -> Bool {
        named.stillValid(principal, nowMillis: nowMillis)
    }
}

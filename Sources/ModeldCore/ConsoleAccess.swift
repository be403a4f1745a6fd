import Console
import HTTPServer
import HTTPWire
import ModelCatalog
import ModeldConfig
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// What the console adds to the admin API (SPEC §15): the session table, the sign-in throttle,
/// the secrets a sign-in may offer and the audit log it records sign-ins in. The admin API
/// accepts a live session cookie with its CSRF token as well as a bearer token.
final class ConsoleAccess: Sendable {
    static let cookieName = "modeld_session"

    let sessions: ConsoleSessions
    let throttle = LoginThrottle()
    let credentials: Credentials
    let audit: AuditLog
    /// `Secure` on the cookie when `public_base_url` is https.
    let secureCookie: Bool
    /// The address the sign-in throttle counts failures for and the audit records.
    let clientAddress: ClientAddress

    init(sessionSeconds: Int, secureCookie: Bool, clientAddress: ClientAddress, credentials: Credentials, audit: AuditLog) {
        sessions = ConsoleSessions(lifetimeMillis: Int64(sessionSeconds) * 1_000)
        self.secureCookie = secureCookie
        self.clientAddress = clientAddress
        self.credentials = credentials
        self.audit = audit
    }

    var sessionSeconds: Int64 { sessions.lifetimeMillis / 1_000 }

    /// The live session the request's cookie names. A session whose token was revoked or has
    /// expired since the sign-in ends here (SPEC §15.1: on every replica within 2 s).
    func session(_ head: RequestHead) -> ConsoleSession? {
        let cookie = CookieHeader.value(named: Self.cookieName, in: head.headers["Cookie"])
        let now = Timestamp.now().millisecondsSinceEpoch
        guard let session = sessions.session(cookie: cookie, now: now) else { return nil }
        guard credentials.stillValid(session.principal, nowMillis: now) else {
            if let cookie { sessions.end(cookie: cookie) }
            return nil
        }
        return session
    }

    /// GET and HEAD change nothing; everything else made with the cookie needs the CSRF header.
    static func needsCSRF(_ method: String) -> Bool { method != "GET" && method != "HEAD" }

    /// A change made with `session` (SPEC §15, §15.1): nil when it comes from the console's own
    /// origin with the session's CSRF token in `X-CSRF-Token`, else the 403 `forbidden` to answer.
    static func refusal(_ head: RequestHead, _ session: ConsoleSession) -> Response? {
        if !fromOwnOrigin(head) { return foreignOrigin }
        guard SecretCompare.equal(head.headers["X-CSRF-Token"], session.csrfToken) else {
            return Response.error(403, "forbidden", "a console session's change needs its CSRF token in X-CSRF-Token")
        }
        return nil
    }

    /// SPEC §15.1: a sign-in, or a change made with the session cookie, from any origin but the
    /// console's own (`null` included) is refused. Browsers send `Origin` with every POST, PATCH
    /// and DELETE (form, fetch, XHR) and `Sec-Fetch-Site` with every request; `null` is what a
    /// sandboxed document, a `data:` URL or a cross-site redirect sends. The own origin is
    /// `http(s)://` + the request's `Host` (a proxy passes Host on, as deploy/nginx does).
    /// Requests with neither header (curl, modelctl) pass: they carry no credential a site could
    /// borrow. The sign-in form sends its real origin: ConsolePage explains how.
    static func fromOwnOrigin(_ head: RequestHead) -> Bool {
        if let site = head.headers["Sec-Fetch-Site"], site != "same-origin", site != "none" { return false }
        guard let origin = head.headers["Origin"]?.lowercased() else { return true }
        guard let host = head.headers["Host"]?.lowercased() else { return false }
        return origin == "http://" + host || origin == "https://" + host
    }

    static let foreignOrigin = Response.error(403, "forbidden", "a console sign-in or change must come from the console's own origin")

    /// SPEC §15.1: sign-ins, sign-outs and failed sign-ins are audited (the address, never a
    /// secret; `actor` nil: the offered token opened nothing). Call it off the loop (fsync).
    func record(_ action: String, actor: String?, peer: String, session: String?) {
        audit.append(AuditEntry.json(time: .now(), action: action, actor: actor, peer: peer, session: session, subject: nil))
    }

    func setCookie(_ value: String, maxAge: Int64) -> String {
        "\(Self.cookieName)=\(value); Max-Age=\(maxAge); Path=/; HttpOnly; SameSite=Strict" + (secureCookie ? "; Secure" : "")
    }
}

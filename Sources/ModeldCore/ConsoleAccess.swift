import Console
import DurableFiles
import HTTPServer
import HTTPWire
import Logging
import ModelCatalog
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// What the console adds to the admin API (SPEC §15): the session table, the sign-in throttle
/// and the audit log. The admin API accepts a live session cookie with its CSRF token as well
/// as the bearer token.
final class ConsoleAccess: Sendable {
    static let cookieName = "modeld_session"

    let sessions: ConsoleSessions
    let throttle = LoginThrottle()
    let audit: AuditLog
    /// `Secure` on the cookie when `public_base_url` is https.
    let secureCookie: Bool

    init(sessionSeconds: Int, secureCookie: Bool, dataDir: String) {
        sessions = ConsoleSessions(lifetimeMillis: Int64(sessionSeconds) * 1_000)
        self.secureCookie = secureCookie
        audit = AuditLog(path: dataDir + "/audit.jsonl")
    }

    var sessionSeconds: Int64 { sessions.lifetimeMillis / 1_000 }

    /// The live session the request's cookie names.
    func session(_ head: RequestHead) -> ConsoleSession? {
        sessions.session(cookie: CookieHeader.value(named: Self.cookieName, in: head.headers["Cookie"]),
                         now: Timestamp.now().millisecondsSinceEpoch)
    }

    /// GET and HEAD change nothing; everything else made with the cookie needs the CSRF header.
    static func needsCSRF(_ method: String) -> Bool { method != "GET" && method != "HEAD" }

    static func csrfMatches(_ head: RequestHead, _ session: ConsoleSession) -> Bool {
        SecretCompare.equal(head.headers["X-CSRF-Token"], session.csrfToken)
    }

    static let forbidden = "a console session's change needs its CSRF token in X-CSRF-Token"

    func setCookie(_ value: String, maxAge: Int64) -> String {
        "\(Self.cookieName)=\(value); Max-Age=\(maxAge); Path=/; HttpOnly; SameSite=Strict" + (secureCookie ? "; Secure" : "")
    }
}

/// Who made an admin change through the console: recorded with the change in the audit log.
struct ConsoleActor: Sendable {
    let audit: AuditLog
    let session: ConsoleSession
    let peer: String

    func record(_ action: String, release: String, before: Release?, after: Release?) {
        audit.append(AuditEntry.json(time: .now(), action: action, release: release, before: before, after: after,
                                     session: session.handle, peer: LoginThrottle.address(ofPeer: peer)))
    }
}

/// `data/audit.jsonl`: one line per console change, appended and fsynced before the change is
/// answered. Appends are serialised so lines never interleave.
final class AuditLog: Sendable {
    let path: String
    private let lock = Mutex(())

    init(path: String) { self.path = path }

    func append(_ line: [UInt8]) {
        lock.withLock { _ in
            do throws(IOFailure) {
                try DurableFile.appendLine(line, to: path)
            } catch {
                // The change is made and answered; the operator learns from the log that its record is missing.
                Logger(label: "modeld.console").error("audit: cannot append to \(path): \(error)")
            }
        }
    }
}

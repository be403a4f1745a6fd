import AccessTokens
import HTMLPage

/// The frame of every console page: no inline script or style (the CSP forbids both), the
/// session's CSRF token in a meta tag for console.js, a labelled navigation and one status region
/// where actions report their result.
public enum ConsolePage {
    public enum View: String, Sendable, CaseIterable {
        case releases, release, events, cost, audit, signIn
    }

    public static let scriptPath = "/console/assets/console.js"
    public static let stylePath = "/console/assets/console.css"
    public static let iconPath = "/console/assets/favicon.svg"

    /// `session` nil: the sign-in page (no session yet, so an empty token and no navigation).
    /// Signed in, the header names who (SPEC §15.1: the token's name and its role).
    public static func document(title: String, view: View, session: ConsoleSession?, body: String) -> String {
        var nav = ""
        if let session {
            func link(_ href: String, _ text: String, _ current: Bool) -> String {
                "<a href=\"\(href)\"\(current ? " aria-current=\"page\"" : "")>\(text)</a>"
            }
            nav = "<header><nav aria-label=\"Console\">"
                + link("/console/", "Releases", view == .releases || view == .release)
                + link("/console/events", "Events", view == .events)
                + link("/console/cost", "Cost", view == .cost)
                + link("/console/audit", "Audit", view == .audit)
                + "</nav><p id=\"signed-in\">Signed in as <strong>\(HTMLPage.escape(session.principal.name))</strong> (\(session.principal.role.rawValue))</p>"
                + "<button type=\"button\" id=\"sign-out\" class=\"secondary\">Sign out</button></header>\n"
        }
        // Under the pages' `Referrer-Policy: no-referrer` a browser posts a form with `Origin:
        // null`, which the server refuses (SPEC §15.1); `same-origin` makes the sign-in form send
        // its real origin and still tells no other site anything.
        let referrer = view == .signIn ? "<meta name=\"referrer\" content=\"same-origin\">\n" : ""
        return """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        \(referrer)<meta name="modeld-csrf" content="\(HTMLPage.escape(session?.csrfToken ?? ""))">
        <title>\(HTMLPage.escape(title)) · modeld console</title>
        <link rel="icon" href="\(iconPath)" type="image/svg+xml">
        <link rel="stylesheet" href="\(stylePath)">
        <script src="\(scriptPath)" defer></script></head>
        <body data-view="\(view.rawValue)">
        \(nav)<main>
        <p id="status" role="status" aria-live="polite"></p>
        \(body)</main>
        <dialog id="confirm" aria-labelledby="confirm-text"><form method="dialog">
        <p id="confirm-text"></p>
        <button value="cancel" class="secondary">Cancel</button> <button value="ok" id="confirm-ok">Confirm</button>
        </form></dialog>
        </body></html>

        """
    }

    /// `returnTo`: the page to land on after signing in (a `ReturnPath`), else `/console/`.
    public static func signIn(message: String?, returnTo: String? = nil) -> String {
        var body = "<h1>modeld console</h1>\n"
        if let message { body += "<p class=\"error\" role=\"alert\">\(HTMLPage.escape(message))</p>\n" }
        let next = ReturnPath.validated(returnTo).map { "<input type=\"hidden\" name=\"next\" value=\"\(HTMLPage.escape($0))\">\n" } ?? ""
        body += """
        <form method="post" action="/console/login" class="signin">
        \(next)<label for="token">Token</label>
        <input id="token" name="token" type="password" autocomplete="current-password" required autofocus>
        <button type="submit">Sign in</button>
        </form>

        """
        return document(title: "Sign in", view: .signIn, session: nil, body: body)
    }

    static func bytes(_ n: Int64) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(n), unit = 0
        while value >= 1024, unit < units.count - 1 { value /= 1024; unit += 1 }
        if unit == 0 { return "\(n) B" }
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10) \(units[unit])"
    }

    static func percent(_ v: Double) -> String {
        let hundredths = Int((v * 10_000).rounded())
        let fraction = hundredths % 100
        return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)%"
    }

    /// A query value, percent-encoded but for RFC 3986's unreserved characters.
    public static func queryValue(_ value: String) -> String {
        var out = ""
        for byte in value.utf8 {
            let c = Character(UnicodeScalar(byte))
            if byte < 0x80, c.isLetter || c.isNumber || "-._~".contains(c) {
                out.append(c)
            } else {
                out += "%" + (byte < 0x10 ? "0" : "") + String(byte, radix: 16, uppercase: true)
            }
        }
        return out
    }
}

import HTMLPage

/// The audit log (SPEC §15.1): its last lines, newest first, filtered by actor or release.
/// Each actor and release links to the view filtered by it.
public enum AuditView {
    /// How many lines the view shows at most (SPEC §15.1: the last 200).
    public static let limit = 200

    public static func page(_ lines: [AuditLine], actor: String?, release: String?, session: ConsoleSession) -> String {
        var body = "<h1>Audit</h1>\n"
        body += """
        <form method="get" action="/console/audit" class="inline">
        <label for="a-actor">Actor</label><input id="a-actor" name="actor" value="\(HTMLPage.escape(actor ?? ""))" placeholder="any">
        <label for="a-release">Release</label><input id="a-release" name="release" value="\(HTMLPage.escape(release ?? ""))" placeholder="any" size="36">
        <button type="submit">Filter</button>
        </form>

        """
        guard !lines.isEmpty else {
            return ConsolePage.document(title: "Audit", view: .audit, session: session, body: body + "<p>No audit lines\(actor == nil && release == nil ? "" : " match").</p>\n")
        }
        body += "<table><caption>The last \(lines.count) line\(lines.count == 1 ? "" : "s") of data/audit.jsonl, newest first</caption><thead><tr>"
            + "<th scope=\"col\">Time (UTC)</th><th scope=\"col\">Actor</th><th scope=\"col\">Address</th><th scope=\"col\">Action</th>"
            + "<th scope=\"col\">Release or token</th><th scope=\"col\">Change</th></tr></thead><tbody>\n"
        for line in lines {
            let who = line.actor.map { "<a href=\"/console/audit?actor=\(ConsolePage.queryValue($0))\">\(HTMLPage.escape($0))</a>" } ?? "–"
            let what = line.release.map { "<a href=\"/console/audit?release=\(ConsolePage.queryValue($0))\"><code>\(HTMLPage.escape(String($0.prefix(8))))…</code></a>" }
                ?? line.token.map { "token <strong>\(HTMLPage.escape($0))</strong>" } ?? "–"
            body += "<tr><td>\(HTMLPage.escape(line.time))</td><td>\(who)</td><td>\(HTMLPage.escape(line.peer))</td>"
                + "<td>\(HTMLPage.escape(line.action))</td><td>\(what)</td><td>\(HTMLPage.escape(line.change))</td></tr>\n"
        }
        body += "</tbody></table>\n"
        return ConsolePage.document(title: "Audit", view: .audit, session: session, body: body)
    }
}

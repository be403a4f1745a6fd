import EventStore
import HTMLPage

/// Outcome rates per model with 95 % Wilson intervals, as `modelctl events stats` (SPEC §7.3, §15).
public enum EventsView {
    /// `summary` nil: the events directory could not be read (none yet, or an error).
    public static func page(_ stats: OutcomeStats, summary: EventExport.Summary?, session: ConsoleSession) -> String {
        var body = "<h1>Events</h1>\n"
        body += """
        <form method="get" action="/console/events" class="inline">
        <label for="e-name">Event name</label><input id="e-name" name="name" value="\(HTMLPage.escape(stats.name ?? ""))" placeholder="all events">
        <button type="submit">Filter</button>
        </form>

        """
        if let summary {
            body += "<p class=\"sub\">\(summary.exported) events read (duplicates dropped: \(summary.duplicateEvents)) from \(summary.segments) segment\(summary.segments == 1 ? "" : "s")</p>\n"
        }
        guard !stats.groups.isEmpty else {
            return ConsolePage.document(title: "Events", view: .events, session: session, body: body + "<p>No events recorded yet.</p>\n")
        }
        body += "<table><caption>Outcome rates per model (95 % Wilson interval)</caption><thead><tr><th scope=\"col\">Model</th><th scope=\"col\">Events</th>"
            + "<th scope=\"col\">Outcome</th><th scope=\"col\">Count</th><th scope=\"col\">Rate</th><th scope=\"col\">95 % CI</th></tr></thead><tbody>\n"
        for g in stats.groups {
            for o in g.outcomes {
                body += "<tr><td><code>\(HTMLPage.escape(g.key))</code></td><td class=\"n\">\(g.events)</td><td>\(HTMLPage.escape(o.value))</td>"
                    + "<td class=\"n\">\(o.count)</td><td class=\"n\">\(ConsolePage.percent(o.rate))</td>"
                    + "<td class=\"n\">\(ConsolePage.percent(o.low)) – \(ConsolePage.percent(o.high))</td></tr>\n"
            }
        }
        body += "</tbody></table>\n"
        return ConsolePage.document(title: "Events", view: .events, session: session, body: body)
    }
}

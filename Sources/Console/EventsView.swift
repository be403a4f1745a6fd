import EventStore
import HTMLPage
import JSONSupport

/// Outcome rates per event name and model with 95 % Wilson intervals, as `modelctl events
/// stats --name` (SPEC §7.3, §15), over a window of UTC days (SPEC §15.1 `from`, `to`); each
/// model that is a release links to it under its label.
public enum EventsView {
    /// The form's values as typed; `problem` says why the window is refused (the page is a 400).
    public struct Filter: Sendable, Equatable {
        public var name: String, from: String, to: String

        public init(name: String, from: String, to: String) {
            self.name = name; self.from = from; self.to = to
        }

        public var problem: String? {
            for (field, day) in [("from", from), ("to", to)] where !day.isEmpty && !EventExport.isDay(day) {
                return "\(field) must be a UTC day YYYY-MM-DD, got \"\(day)\""
            }
            if !from.isEmpty, !to.isEmpty, from > to { return "from (\(from)) is after to (\(to))" }
            return nil
        }
    }

    /// One `OutcomeStats` per event name: a rate among events of one name is the meaningful one.
    public struct Stats {
        var byName: [String: OutcomeStats] = [:]

        public init() {}

        /// `only`: count events of this name alone.
        public mutating func add(_ event: JSONValue, only: String?) {
            let name = event["name"]?.stringValue ?? OutcomeStats.missing
            if let only, name != only { return }
            byName[name, default: OutcomeStats()].add(event)
        }
    }

    /// `summary` nil: nothing was read (no events yet, an unreadable directory, or a refused
    /// window). `labels`: release id → label, for the links.
    public static func page(_ stats: Stats, filter: Filter, summary: EventExport.Summary?, labels: [String: String], session: ConsoleSession) -> String {
        var body = "<h1>Events</h1>\n"
        body += """
        <form method="get" action="/console/events" class="inline">
        <label for="e-name">Event name</label><input id="e-name" name="name" value="\(HTMLPage.escape(filter.name))" placeholder="all events">
        <label for="e-from">From (UTC day)</label><input id="e-from" name="from" type="date" value="\(HTMLPage.escape(filter.from))">
        <label for="e-to">To (UTC day)</label><input id="e-to" name="to" type="date" value="\(HTMLPage.escape(filter.to))">
        <button type="submit">Filter</button>
        </form>

        """
        if let problem = filter.problem {
            body += "<p class=\"error\" role=\"alert\">\(HTMLPage.escape(problem))</p>\n"
        }
        if let summary {
            body += "<p class=\"sub\">\(summary.exported) event\(summary.exported == 1 ? "" : "s") read (duplicates dropped: \(summary.duplicateEvents)) "
                + "from \(summary.segments) segment\(summary.segments == 1 ? "" : "s")\(window(filter))</p>\n"
        }
        guard !stats.byName.isEmpty else {
            return ConsolePage.document(title: "Events", view: .events, session: session, body: body + "<p>No events recorded in this window.</p>\n")
        }
        body += "<table><caption>Outcome rates per event name and model (95 % Wilson interval)</caption><thead><tr>"
            + "<th scope=\"col\">Event</th><th scope=\"col\">Model</th><th scope=\"col\">Events</th>"
            + "<th scope=\"col\">Outcome</th><th scope=\"col\">Count</th><th scope=\"col\">Rate</th><th scope=\"col\">95 % CI</th></tr></thead><tbody>\n"
        for name in stats.byName.keys.sorted() {
            for g in stats.byName[name]!.groups {
                for o in g.outcomes {
                    body += "<tr><td>\(HTMLPage.escape(name))</td><td>\(model(g.key, labels))</td><td class=\"n\">\(g.events)</td><td>\(HTMLPage.escape(o.value))</td>"
                        + "<td class=\"n\">\(o.count)</td><td class=\"n\">\(ConsolePage.percent(o.rate))</td>"
                        + "<td class=\"n\">\(ConsolePage.percent(o.low)) – \(ConsolePage.percent(o.high))</td></tr>\n"
                }
            }
        }
        body += "</tbody></table>\n"
        return ConsolePage.document(title: "Events", view: .events, session: session, body: body)
    }

    /// A release's label linking to its page, with the id; any other model id as text.
    static func model(_ id: String, _ labels: [String: String]) -> String {
        guard let label = labels[id] else { return "<code>\(HTMLPage.escape(id))</code>" }
        let text = label.isEmpty ? "<code>\(HTMLPage.escape(id))</code>" : HTMLPage.escape(label) + " <code>\(HTMLPage.escape(id))</code>"
        return "<a href=\"/console/releases/\(HTMLPage.escape(id))\">\(text)</a>"
    }

    private static func window(_ f: Filter) -> String {
        switch (f.from.isEmpty, f.to.isEmpty) {
        case (true, true): ""
        case (false, true): ", received from \(HTMLPage.escape(f.from))"
        case (true, false): ", received until \(HTMLPage.escape(f.to))"
        case (false, false): ", received \(HTMLPage.escape(f.from)) – \(HTMLPage.escape(f.to))"
        }
    }
}

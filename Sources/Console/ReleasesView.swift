import AccessTokens
import HTMLPage
import ModelCatalog

/// What is live now (SPEC §15.1), then releases by channel (SPEC §15), newest first, with the
/// publish form above them; filtered and paged (SPEC §17.1, `ReleaseQuery`, `ReleaseListing`):
/// "Live now" shows the channels of the page's rows.
public enum ReleasesView {
    /// Requests and body bytes served today (UTC) for one release's files.
    public struct Served: Sendable, Equatable {
        public var requests: Int64 = 0
        public var bytes: Int64 = 0
        public init(requests: Int64 = 0, bytes: Int64 = 0) { self.requests = requests; self.bytes = bytes }
    }

    /// One page of releases (`ReleaseListing`), or the filter form and why the query was refused
    /// (`problem`: the page is then a 400). The publish form only for a role that may publish
    /// (SPEC §15.1: a viewer sees no control it lacks).
    public static func page(_ listing: Result<ReleaseListing, QueryProblem>, typed: ReleaseQuery.Typed,
                            served: [String: Served], signature: String, session: ConsoleSession) -> String {
        var body = "<h1>Releases</h1>\n" + filterForm(typed)
        let publish = session.principal.role >= .publisher ? publishForm() : ""
        switch listing {
        case .failure(let problem):
            body += "<p class=\"error\" role=\"alert\">\(HTMLPage.escape(problem.message))</p>\n" + publish
        case .success(let listing):
            body += liveSection(listing.live, releases: listing.channelReleases) + publish + pages(listing, position: .top)
            body += releaseTables(listing, served: served, signature: signature)
            if listing.pageCount > 1 { body += pages(listing, position: .bottom) }
        }
        return ConsolePage.document(title: "Releases", view: .releases, session: session, body: body)
    }

    /// A plain GET form (no script): submitting it starts again at page 1.
    static func filterForm(_ typed: ReleaseQuery.Typed) -> String {
        func option(_ value: String, _ text: String, selected: Bool) -> String {
            "<option value=\"\(HTMLPage.escape(value))\"\(selected ? " selected" : "")>\(HTMLPage.escape(text))</option>"
        }
        let states = option("", "any", selected: typed.state.isEmpty)
            + Release.State.allCases.map { option($0.rawValue, $0.rawValue, selected: typed.state == $0.rawValue) }.joined()
        // A per_page typed in the URL that the menu lacks is offered too, so the form keeps it.
        var sizes = ReleaseQuery.perPageChoices.map(String.init)
        if !typed.perPage.isEmpty, !sizes.contains(typed.perPage) { sizes.append(typed.perPage) }
        let current = typed.perPage.isEmpty ? String(ReleaseQuery.maxPerPage) : typed.perPage
        let perPage = sizes.map { option($0, $0, selected: $0 == current) }.joined()
        return """
        <form method="get" action="/console/" class="inline filter" role="search" aria-label="Filter releases">
        <label for="f-channel">Show channel</label><input id="f-channel" name="channel" value="\(HTMLPage.escape(typed.channel))" placeholder="all" size="14">
        <label for="f-label">Label contains</label><input id="f-label" name="label" value="\(HTMLPage.escape(typed.label))" placeholder="any" size="16">
        <label for="f-state">State</label><select id="f-state" name="state">\(states)</select>
        <label for="f-per-page">Rows per page</label><select id="f-per-page" name="per_page">\(perPage)</select>
        <button type="submit">Filter</button> <a href="/console/">Clear filter</a>
        </form>

        """
    }

    enum Position { case top, bottom }

    /// "Rows X–Y of Z", and links to the first, previous, next and last pages of the same filter.
    static func pages(_ listing: ReleaseListing, position: Position) -> String {
        let q = listing.query
        let summary: String
        if listing.total == 0 {
            summary = q.isFiltered ? "No release matches this filter." : "No release published yet."
        } else if listing.isPastTheEnd {
            summary = "Page \(q.page) is past the last page (\(listing.pageCount)); \(listing.total) release\(listing.total == 1 ? "" : "s") match."
        } else {
            summary = "Rows \(listing.firstRow)–\(listing.lastRow) of \(listing.total)" + (listing.pageCount > 1 ? ", page \(q.page) of \(listing.pageCount)" : "")
        }
        var links: [String] = []
        if q.page > 1 {
            let previous = min(q.page - 1, listing.pageCount)
            links.append("<a href=\"\(HTMLPage.escape(q.href(page: 1)))\">First page</a>")
            links.append("<a href=\"\(HTMLPage.escape(q.href(page: previous)))\" rel=\"prev\">Previous page</a>")
        }
        if q.page < listing.pageCount {
            links.append("<a href=\"\(HTMLPage.escape(q.href(page: q.page + 1)))\" rel=\"next\">Next page</a>")
            links.append("<a href=\"\(HTMLPage.escape(q.href(page: listing.pageCount)))\">Last page</a>")
        }
        let label = position == .top ? "Pages" : "Pages (bottom)"
        return "<nav class=\"pages\" aria-label=\"\(label)\"><p\(position == .top ? " id=\"rows\"" : "")>\(summary)</p>\(links.joined(separator: " "))</nav>\n"
    }

    /// The page's rows, one table per channel (a channel cut by the page boundary continues on the next).
    static func releaseTables(_ listing: ReleaseListing, served: [String: Served], signature: String) -> String {
        var body = ""
        var start = listing.rows.startIndex
        while start < listing.rows.endIndex {
            let channel = listing.rows[start].channel
            let end = listing.rows[start...].firstIndex { $0.channel != channel } ?? listing.rows.endIndex
            body += "<section aria-labelledby=\"ch-\(HTMLPage.escape(channel))\"><h2 id=\"ch-\(HTMLPage.escape(channel))\">Channel \(HTMLPage.escape(channel))</h2>\n"
            body += "<table><thead><tr><th scope=\"col\">Release</th><th scope=\"col\">Label</th><th scope=\"col\">SDK range</th>"
                + "<th scope=\"col\">Rollout</th><th scope=\"col\">State</th><th scope=\"col\">Variants</th><th scope=\"col\">Signature</th>"
                + "<th scope=\"col\">Guard</th><th scope=\"col\">Requests today</th><th scope=\"col\">Bytes today</th></tr></thead><tbody>\n"
            for r in listing.rows[start..<end] {
                let s = served[r.id] ?? Served()
                let variants = r.variants.filter { $0.removedAt == nil }.map(\.name)
                body += "<tr><td><a href=\"/console/releases/\(r.id)\">\(r.id.prefix(8))…</a></td>"
                    + "<td>\(HTMLPage.escape(r.label))</td><td>\(sdkRange(r))</td>"
                    + "<td class=\"n\">\(r.state == .active ? "\(r.rolloutPercent)%" : "–")</td><td><span class=\"state \(r.state.rawValue)\">\(r.state.rawValue)</span></td>"
                    + "<td>\(variants.isEmpty ? "–" : HTMLPage.escape(variants.joined(separator: ", ")))</td>"
                    + "<td>\(HTMLPage.escape(signature))</td><td>\(r.guardPlan.map { HTMLPage.escape($0.runtime.status.rawValue) } ?? "–")</td>"
                    + "<td class=\"n\">\(s.requests)</td><td class=\"n\">\(ConsolePage.bytes(s.bytes))</td></tr>\n"
            }
            body += "</tbody></table></section>\n"
            start = end
        }
        return body
    }

    /// One table per channel: per SDK range, the share each release answers (guarded
    /// challengers at their stage), the part that gets no model, and who answers nobody and why.
    static let shownPerRange = 5

    static func liveSection(_ live: LiveView, releases: [Release]) -> String {
        let byID = Dictionary(releases.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        func name(_ id: String) -> String {
            let label = byID[id]?.label ?? ""
            return "<a href=\"/console/releases/\(id)\">\(id.prefix(8))…</a>" + (label.isEmpty ? "" : " " + HTMLPage.escape(label))
        }
        var body = "<section aria-labelledby=\"live-h\"><h2 id=\"live-h\">Live now</h2>\n"
        body += "<p class=\"sub\">The channels on this page: the share of installs (update checks with a client id) each release answers, per SDK range, as /latest selects.</p>\n"
        if live.channels.isEmpty { body += "<p>No channel on this page.</p>\n" }
        for (channel, ranges) in live.channels {
            body += "<table class=\"live\"><caption>Channel \(HTMLPage.escape(channel))</caption><thead><tr><th scope=\"col\">SDK range</th>"
                + "<th scope=\"col\">Serving</th><th scope=\"col\">Answers nobody</th></tr></thead><tbody>\n"
            if ranges.isEmpty { body += "<tr><td colspan=\"3\">No release in this channel.</td></tr>\n" }
            for range in ranges {
                var serving = range.serving.map { s -> String in
                    var item = "<li><span class=\"share\">\(ConsolePage.percent(s.share))</span> \(name(s.id))"
                    if let r = byID[s.id], r.hasRunningGuard { item += " <span class=\"note\">guard stage \(r.rolloutPercent)%</span>" }
                    if !s.variants.isEmpty { item += " <span class=\"note\">variants: \(HTMLPage.escape(s.variants.joined(separator: ", ")))</span>" }
                    return item + "</li>"
                }
                let rest = 1 - range.serving.reduce(0) { $0 + $1.share }
                if rest > 0.000_001 { serving.append("<li><span class=\"share\">\(ConsolePage.percent(rest))</span> no model (404)</li>") }
                // The newest few only: every superseded release of a range answers nobody, and a
                // list of hundreds would bury the ones that matter (and slow the page down).
                var nobody = range.shadowed.prefix(shownPerRange).map { id -> String in
                    // (badge class, words): paused and retired as such; an active one is outranked or at 0 %.
                    let (badge, why) = switch byID[id]?.state {
                    case .paused?: ("paused", "paused")
                    case .retired?: ("retired", "retired")
                    default: ("shadowed", byID[id]?.rolloutPercent == 0 ? "at 0 %" : "shadowed")
                    }
                    return "<li>\(name(id)) <span class=\"state \(badge)\">\(why)</span></li>"
                }
                if range.shadowed.count > shownPerRange {
                    nobody.append("<li class=\"note\">and \(range.shadowed.count - shownPerRange) older</li>")
                }
                body += "<tr><td>\(HTMLPage.escape("≥ \(range.sdkMin)" + (range.sdkMax.map { ", < \($0)" } ?? "")))</td>"
                    + "<td><ul class=\"plain\">\(serving.joined())</ul></td>"
                    + "<td>\(nobody.isEmpty ? "–" : "<ul class=\"plain\">\(nobody.joined())</ul>")</td></tr>\n"
            }
            body += "</tbody></table>\n"
        }
        return body + "</section>\n"
    }

    static func sdkRange(_ r: Release) -> String {
        HTMLPage.escape("≥ \(r.sdkMin)" + (r.sdkMax.map { ", < \($0)" } ?? ""))
    }

    /// Posted by console.js as a streamed `POST /admin/models` (XHR, for its upload progress).
    static func publishForm() -> String {
        """
        <details class="panel"><summary>Publish a release</summary>
        <form id="publish" data-upload="/admin/models">
        <div class="grid">
        <label for="p-file">Model file</label><input id="p-file" name="file" type="file" required>
        <label for="p-sdk-min">SDK minimum</label><input id="p-sdk-min" name="sdk_min" required placeholder="2.3">
        <label for="p-sdk-max">SDK maximum (exclusive)</label><input id="p-sdk-max" name="sdk_max" placeholder="optional">
        <label for="p-channel">Channel</label><input id="p-channel" name="channel" value="stable">
        <label for="p-rollout">Rollout %</label><input id="p-rollout" name="rollout" type="number" min="0" max="100" value="100">
        <label for="p-label">Label</label><input id="p-label" name="label" maxlength="200">
        <label for="p-guard">Guard (JSON, optional)</label><textarea id="p-guard" name="guard" rows="2" placeholder='{"metric":{"name":"prediction","outcome":"success"}}'></textarea>
        </div>
        <progress id="p-progress" max="100" value="0" aria-label="Upload progress" hidden></progress>
        <button type="submit">Publish</button>
        </form></details>

        """
    }
}

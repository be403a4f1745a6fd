import AccessTokens
import HTMLPage
import ModelCatalog

/// What is live now (SPEC §15.1), then releases by channel (SPEC §15), newest first, with the
/// publish form above them.
public enum ReleasesView {
    /// Requests and body bytes served today (UTC) for one release's files.
    public struct Served: Sendable, Equatable {
        public var requests: Int64 = 0
        public var bytes: Int64 = 0
        public init(requests: Int64 = 0, bytes: Int64 = 0) { self.requests = requests; self.bytes = bytes }
    }

    /// The publish form only for a role that may publish (SPEC §15.1: a viewer sees no control it lacks).
    public static func page(releases: [Release], served: [String: Served], signature: String, session: ConsoleSession) -> String {
        var body = "<h1>Releases</h1>\n" + liveSection(LiveView(releases), releases: releases) + (session.principal.role >= .publisher ? publishForm() : "")
        let channels = Dictionary(grouping: releases, by: \.channel)
        if channels.isEmpty { body += "<p>No release published yet.</p>\n" }
        for channel in channels.keys.sorted() {
            let rows = channels[channel]!.sorted { $0.seq > $1.seq }
            body += "<section aria-labelledby=\"ch-\(HTMLPage.escape(channel))\"><h2 id=\"ch-\(HTMLPage.escape(channel))\">Channel \(HTMLPage.escape(channel))</h2>\n"
            body += "<table><thead><tr><th scope=\"col\">Release</th><th scope=\"col\">Label</th><th scope=\"col\">SDK range</th>"
                + "<th scope=\"col\">Rollout</th><th scope=\"col\">State</th><th scope=\"col\">Variants</th><th scope=\"col\">Signature</th>"
                + "<th scope=\"col\">Guard</th><th scope=\"col\">Requests today</th><th scope=\"col\">Bytes today</th></tr></thead><tbody>\n"
            for r in rows {
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
        }
        return ConsolePage.document(title: "Releases", view: .releases, session: session, body: body)
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
        body += "<p class=\"sub\">The share of installs (update checks with a client id) each release answers, per SDK range, as /latest selects.</p>\n"
        if live.channels.isEmpty { body += "<p>Nothing is live.</p>\n" }
        for (channel, ranges) in live.channels {
            body += "<table class=\"live\"><caption>Channel \(HTMLPage.escape(channel))</caption><thead><tr><th scope=\"col\">SDK range</th>"
                + "<th scope=\"col\">Serving</th><th scope=\"col\">Answers nobody</th></tr></thead><tbody>\n"
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
                    nobody.append("<li class=\"note\">and \(range.shadowed.count - shownPerRange) older (listed below)</li>")
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

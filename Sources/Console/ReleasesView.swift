import AccessTokens
import HTMLPage
import ModelCatalog

/// Releases by channel (SPEC §15), newest first, with the publish form above them.
public enum ReleasesView {
    /// Requests and body bytes served today (UTC) for one release's files.
    public struct Served: Sendable, Equatable {
        public var requests: Int64 = 0
        public var bytes: Int64 = 0
        public init(requests: Int64 = 0, bytes: Int64 = 0) { self.requests = requests; self.bytes = bytes }
    }

    /// The publish form only for a role that may publish (SPEC §15.1: a viewer sees no control it lacks).
    public static func page(releases: [Release], served: [String: Served], signature: String, session: ConsoleSession) -> String {
        var body = "<h1>Releases</h1>\n" + (session.principal.role >= .publisher ? publishForm() : "")
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
                    + "<td class=\"n\">\(r.rolloutPercent)%</td><td><span class=\"state \(r.state.rawValue)\">\(r.state.rawValue)</span></td>"
                    + "<td>\(variants.isEmpty ? "–" : HTMLPage.escape(variants.joined(separator: ", ")))</td>"
                    + "<td>\(HTMLPage.escape(signature))</td><td>\(r.guardPlan.map { HTMLPage.escape($0.runtime.status.rawValue) } ?? "–")</td>"
                    + "<td class=\"n\">\(s.requests)</td><td class=\"n\">\(ConsolePage.bytes(s.bytes))</td></tr>\n"
            }
            body += "</tbody></table></section>\n"
        }
        return ConsolePage.document(title: "Releases", view: .releases, session: session, body: body)
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

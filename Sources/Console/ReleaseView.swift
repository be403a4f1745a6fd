import AccessTokens
import EgressCost
import Guardrails
import HTMLPage
import JSONSupport
import ModelCatalog

/// One release (SPEC §15): file, chunk list, variants, guard chart and decisions, and the
/// actions on it. Every action is a call to the admin API made by console.js.
public enum ReleaseView {
    public static func page(_ r: Release, chunkList: String?, served: ReleasesView.Served, guardReport: GuardReport?,
                            signature: String, session: ConsoleSession, nowMillis: Int64, lineage: Catalog.Lineage = .init()) -> String {
        var body = "<h1>Release <code>\(r.id)</code></h1>\n"
        body += "<p class=\"sub\">\(HTMLPage.escape(r.label.isEmpty ? "no label" : r.label)) · channel \(HTMLPage.escape(r.channel)) · seq \(r.seq)</p>\n"
        body += "<div id=\"live\" data-src=\"/console/releases/\(r.id)/live\">"
        body += live(r, chunkList: chunkList, served: served, guardReport: guardReport, signature: signature, session: session,
                     nowMillis: nowMillis, lineage: lineage)
        body += "</div>\n"
        return ConsolePage.document(title: "Release \(r.id.prefix(8))", view: .release, session: session, body: body)
    }

    /// Everything on the page the server can change (SPEC §15.1: state, rollout, guard): the
    /// facts, the actions, the guard panel and the variants, fetched again by console.js every
    /// few seconds and after each change made on the page.
    /// Each part (`data-part`) is swapped whole by its id; the parts with controls carry the
    /// release's revision, which their requests send as `If-Match`.
    public static func live(_ r: Release, chunkList: String?, served: ReleasesView.Served, guardReport: GuardReport?,
                            signature: String, session: ConsoleSession, nowMillis: Int64, lineage: Catalog.Lineage = .init()) -> String {
        // SPEC §15.1: a viewer's page shows the release without a control it may not use.
        let steers = session.principal.role >= .publisher
        var body = "<dl class=\"facts\" id=\"facts\" data-part>"
        func fact(_ k: String, _ v: String) { body += "<dt>\(k)</dt><dd>\(v)</dd>" }
        fact("State", "<span class=\"state \(r.state.rawValue)\" id=\"state\">\(r.state.rawValue)</span>")
        fact("Rollout", "<span id=\"rollout-now\">\(r.rolloutPercent)%</span>")
        fact("SDK range", ReleasesView.sdkRange(r))
        fact("File", "<a href=\"/models/\(HTMLPage.escape(r.file))\">\(HTMLPage.escape(r.file))</a> · \(ConsolePage.bytes(r.size)) · \(HTMLPage.escape(r.contentType))")
        fact("SHA-256", "<code>\(r.sha256)</code>")
        fact("Chunk list", chunkList.map { "<a href=\"/models/\(HTMLPage.escape($0))\">\(HTMLPage.escape($0))</a>" } ?? "none")
        fact("Published", HTMLPage.escape(r.publishedAt.rfc3339) + (r.retiredAt.map { " · retired " + HTMLPage.escape($0.rfc3339) } ?? ""))
        fact("Signature", HTMLPage.escape(signature))
        fact("Served today", "\(ByteFormat.requests(served.requests)), \(ConsolePage.bytes(served.bytes))")
        // SPEC §3.2: the base (linked when it is a release) and the adapters built on this one.
        if let base = r.base {
            let file = "\(HTMLPage.escape(base.channel)) · <code>\(base.sha256)</code>"
            fact("Base", lineage.baseRelease.map { "<a href=\"/console/releases/\($0.id)\">\(HTMLPage.escape($0.label.isEmpty ? $0.id : $0.label))</a> · \(file)" }
                ?? file + " (not a release: a bundled file)")
        }
        if !lineage.adapters.isEmpty {
            fact("Adapters", lineage.adapters.map { "<a href=\"/console/releases/\($0.id)\">\(HTMLPage.escape($0.label.isEmpty ? $0.id : $0.label))</a> (\(HTMLPage.escape($0.channel)))" }
                .joined(separator: ", "))
        }
        body += "</dl>\n"
        if r.state != .retired && steers { body += actions(r) }
        if let plan = r.guardPlan {
            body += GuardPanel.section(r, plan: plan, report: guardReport, steers: steers, nowMillis: nowMillis)
        }
        return body + variants(r, steers: steers)
    }

    static func requiresText(_ r: VariantRequirements) -> String {
        var w = JSONWriter(capacity: 128)
        r.write(to: &w)
        return w.string
    }

    /// Rollout, pause or resume, retire. A change that stops a running guard, or resumes a
    /// release its guard paused, says so in its confirmation (SPEC §11.4, §15.1).
    static func actions(_ r: Release) -> String {
        let id = r.id
        let stopsGuard = r.hasRunningGuard ? " The guard will stop: it records manual_override and no longer advances, pauses or promotes this release." : ""
        var html = "<section id=\"actions\" data-part data-revision=\"\(r.revision.opaque)\" aria-labelledby=\"actions-h\"><h2 id=\"actions-h\">Actions</h2>\n"
        html += """
        <form id="rollout" data-release="\(id)" class="inline"\(stopsGuard.isEmpty ? "" : " data-confirm=\"Set the rollout by hand?\(stopsGuard)\"")>
        <label for="rollout-percent">Rollout %</label>
        <input id="rollout-percent" name="rollout_percent" type="number" min="0" max="100" value="\(r.rolloutPercent)" required>
        <button type="submit">Set rollout</button>
        </form>
        <div class="buttons">
        """
        if r.state == .active {
            html += "<button type=\"button\" data-state=\"paused\" data-release=\"\(id)\" data-confirm=\"Pause this release? Clients fall back to the previous eligible release at once.\(stopsGuard)\">Pause</button>"
        } else if r.guardPlan?.pausedItsRelease == true {
            html += "<button type=\"button\" data-state=\"active\" data-release=\"\(id)\" data-confirm=\"Resume anyway? The guard paused this release (\(r.guardPlan?.runtime.status.rawValue ?? "")). "
                + "Resuming serves it again and stops the guard: it records manual_override and no longer watches this release.\">Resume anyway</button>"
        } else {
            html += "<button type=\"button\" data-state=\"active\" data-release=\"\(id)\">Resume</button>"
        }
        html += " <button type=\"button\" class=\"danger\" data-retire=\"\(id)\" data-confirm=\"Retire this release? This cannot be undone.\(stopsGuard)\">Retire</button>"
        return html + "</div></section>\n"
    }

    static func variants(_ r: Release, steers: Bool) -> String {
        let live = r.variants.filter { $0.removedAt == nil }
        var html = "<section id=\"variants\" data-part aria-labelledby=\"variants-h\"><h2 id=\"variants-h\">Variants</h2>\n"
        if live.isEmpty {
            html += "<p>No variants: every client gets the release's own file.</p>\n"
        } else {
            html += "<table><thead><tr><th scope=\"col\">Name</th><th scope=\"col\">File</th><th scope=\"col\">Size</th><th scope=\"col\">Requires</th>"
                + (steers ? "<th scope=\"col\"><span class=\"visually-hidden\">Action</span></th>" : "") + "</tr></thead><tbody>"
            for v in live {
                html += "<tr><td>\(HTMLPage.escape(v.name))</td><td>\(HTMLPage.escape(v.file))</td><td class=\"n\">\(ConsolePage.bytes(v.size))</td>"
                    + "<td><code>\(HTMLPage.escape(requiresText(v.requires)))</code></td>"
                guard steers else { html += "</tr>"; continue }
                html += "<td><button type=\"button\" class=\"secondary\" data-remove-variant=\"\(HTMLPage.escape(v.name))\" data-release=\"\(r.id)\" "
                    + "aria-label=\"Remove variant \(HTMLPage.escape(v.name))\" data-confirm=\"Remove variant \(HTMLPage.escape(v.name))?\">Remove</button></td></tr>"
            }
            html += "</tbody></table>\n"
        }
        if r.state != .retired && steers {
            html += """
            <details class="panel"><summary>Add a variant</summary>
            <form id="add-variant" data-upload="/admin/models/\(r.id)/variants">
            <div class="grid">
            <label for="v-file">Variant file</label><input id="v-file" name="file" type="file" required>
            <label for="v-name">Name</label><input id="v-name" name="name" required pattern="[a-z0-9_-]{1,32}">
            <label for="v-requires">Requires</label><input id="v-requires" name="requires" required placeholder="min_ram_mb=7000,platform=ios">
            </div>
            <progress id="v-progress" max="100" value="0" aria-label="Variant upload progress" hidden></progress>
            <button type="submit">Add variant</button>
            </form></details>

            """
        }
        return html + "</section>\n"
    }
}

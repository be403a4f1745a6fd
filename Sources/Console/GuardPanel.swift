import AccessTokens
import Guardrails
import HTMLPage
import ModelCatalog

/// The guard panel of a release page (SPEC §15.1): the plan, the stage and what blocks the next,
/// the verdict in words, "Stop guard" for those who may steer, then the §11.5 chart and the
/// decisions. Part of the page's live fragment, so all of it refreshes while the page is open.
enum GuardPanel {
    static func section(_ r: Release, plan: GuardPlan, report: GuardReport?, steers: Bool, nowMillis: Int64) -> String {
        let verdict = GuardVerdict(plan: plan, stage: r.rolloutPercent, points: report?.points ?? [])
        var html = "<section id=\"guard-panel\" data-part data-revision=\"\(r.revision.opaque)\" aria-labelledby=\"guard-h\">"
            + "<h2 id=\"guard-h\">Guard</h2>\n"
        html += "<p class=\"verdict \(plan.runtime.status.rawValue)\" id=\"guard-verdict\">\(HTMLPage.escape(verdict.text))</p>\n"
        if let progress = verdict.progress(nowMillis: nowMillis) {
            html += "<p id=\"guard-progress\">\(HTMLPage.escape(progress))</p>\n"
        }
        let points = report?.points.count ?? 0
        html += "<p>Status <strong id=\"guard-status\">\(plan.runtime.status.rawValue)</strong> · \(points) recorded point\(points == 1 ? "" : "s")</p>\n"
        if let read = report?.eventsRead, !read.isEmpty {
            html += "<p id=\"guard-events-read\">Newest event read: "
                + read.map { "\(HTMLPage.escape($0.instance)) \(HTMLPage.escape($0.at))" }.joined(separator: " · ") + "</p>\n"
        }
        html += planFacts(plan)
        if steers && r.hasRunningGuard {
            html += "<div class=\"buttons\"><button type=\"button\" class=\"secondary\" data-stop-guard=\"\(r.id)\" "
                + "data-confirm=\"Stop the guard? The rollout stays at \(r.rolloutPercent) % and the state as it is; the guard records "
                + "manual_override and will no longer advance, pause or promote this release.\">Stop guard</button></div>\n"
        }
        if let report {
            html += "<div id=\"guard\"><div class=\"chart\">" + report.chart() + "</div>" + report.table() + "</div>"
        } else {
            html += "<p id=\"guard\" class=\"error\">The guard's figures cannot be read now (data/guard-state, data/guard-decisions.jsonl).</p>"
        }
        return html + "</section>\n"
    }

    /// The plan as §11.1 states it, in the words of the panel.
    static func planFacts(_ plan: GuardPlan) -> String {
        let m = plan.metric
        let metric = m.kind == .rate ? "\(m.name) = \(m.outcome ?? "") (rate of a client's \(m.name) events)" : "\(m.name) (mean value per client)"
        let facts: [(String, String)] = [
            ("Metric", metric),
            ("Direction", m.direction == .higherIsBetter ? "higher is better" : "lower is better"),
            ("Stages", plan.stages.map(String.init).joined(separator: " → ") + " %, then " + (plan.goal == .prove ? "100 % once proven better" : "100 %")),
            ("Soak per stage", GuardVerdict.duration(seconds: plan.minStageSeconds)),
            ("Minimum clients per arm", GuardVerdict.count(plan.minClientsPerArm)),
            ("Regression margin", "\(plan.regressionMargin)"),
            ("α", "\(plan.alpha)"),
            ("Settle (SRM)", plan.settleSeconds == 0 ? "0 (every cohort at once)" : GuardVerdict.duration(seconds: plan.settleSeconds)),
            ("On SRM", plan.onSRM.rawValue),
        ]
        return "<dl class=\"facts\" id=\"guard-plan\" aria-label=\"Guard plan\">"
            + facts.map { "<dt>\($0.0)</dt><dd>\(HTMLPage.escape($0.1))</dd>" }.joined() + "</dl>\n"
    }
}

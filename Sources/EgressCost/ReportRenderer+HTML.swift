import HTMLPage

/// The HTML report: one self-contained page (`HTMLPage`, plus inline SVG).
extension ReportRenderer {
    public static func html(_ r: ReportSummary) -> String {
        HTMLPage.document(title: "modeld egress cost report", extraCSS: ".cols{display:flex;gap:32px;flex-wrap:wrap}",
                          body: "<h1>modeld egress cost report</h1>\n" + htmlBody(r))
    }

    /// The report without its frame (the console puts it in its own page, under its own CSS).
    public static func htmlBody(_ r: ReportSummary) -> String {
        var body = ""
        body += "<p class=\"sub\">\(HTMLPage.escape(periodText(r))) · free tier \(r.freeTier ? "on" : "off") · GB = \(HTMLPage.escape(EstimateRenderer.gbUnitText(r.gbUnit)))</p>\n"
        body += "<div class=\"cards\">"
        body += HTMLPage.card("Served", ByteFormat.human(r.total.bytes), ByteFormat.requests(r.total.requests))
        body += HTMLPage.card("Monthly projection", ByteFormat.human(r.projection.bytes), ByteFormat.requests(r.projection.requests))
        body += HTMLPage.card("304 Not Modified", ByteFormat.grouped(r.notModified), "≈ \(ByteFormat.human(r.bytesSaved)) not re-sent")
        body += HTMLPage.card("Range resumes (206)", ByteFormat.grouped(r.rangeResumes.requests), ByteFormat.human(r.rangeResumes.bytes))
        if let cheapest = r.projectedCost.first {
            body += HTMLPage.card("Cheapest per month", "$" + cheapest.total.description, cheapest.id)
        }
        body += "</div>\n"

        body += "<h2>Bytes served per day</h2>\n" + dailyChart(r.byDay)
        // Priced without providers (no price table), the report is the traffic alone.
        if !r.cost.isEmpty {
            body += "<h2>Projected monthly cost per provider</h2>\n" + costChart(r.projectedCost)
            body += costTable(r.projectedCost, caption: "Monthly projection (mean of \(r.coveredDays) covered day\(r.coveredDays == 1 ? "" : "s") × 30)")
            body += costTable(r.cost, caption: "Logged traffic priced as one month")
        }
        body += "<div class=\"cols\">"
        body += trafficTable("Model", r.byModel) + trafficTable("Route", r.byRoute)
        body += "</div>\n"
        body += trafficTable("Day", r.byDay)
        if r.cost.contains(where: { !$0.verified }) {
            body += "<p class=\"note\">* unverified price or traffic beyond the published tiers (see config/pricing.json).</p>\n"
        }
        return body
    }

    /// Vertical bars, one per covered day, scaled to the busiest day.
    static func dailyChart(_ days: [ReportSummary.Row]) -> String {
        let width = 1060, height = 260, left = 70, bottom = 40, top = 16
        let plotW = width - left - 10, plotH = height - bottom - top
        let maxBytes = niceCeiling(days.map(\.traffic.bytes).max() ?? 0)
        var svg = "<svg width=\"\(width)\" height=\"\(height)\" viewBox=\"0 0 \(width) \(height)\" role=\"img\" aria-label=\"bytes per day\">"
        for step in 0...4 {
            let y = top + plotH - plotH * step / 4
            svg += "<line x1=\"\(left)\" y1=\"\(y)\" x2=\"\(width - 10)\" y2=\"\(y)\" stroke=\"#e4e7eb\"/>"
            svg += "<text x=\"\(left - 6)\" y=\"\(y + 4)\" text-anchor=\"end\">\(ByteFormat.compact(maxBytes / 4 * Int64(step)))</text>"
        }
        let slot = days.isEmpty ? plotW : plotW / days.count
        let labelEvery = max(1, (days.count + 13) / 14)
        for (i, day) in days.enumerated() {
            let h = Int(Int128(day.traffic.bytes) * Int128(plotH) / Int128(maxBytes))
            let x = left + i * slot + max(1, slot / 8)
            svg += "<rect x=\"\(x)\" y=\"\(top + plotH - h)\" width=\"\(max(1, slot - 2 * max(1, slot / 8)))\" height=\"\(h)\" fill=\"#3e7cb1\"><title>\(HTMLPage.escape(day.key)): \(ByteFormat.human(day.traffic.bytes))</title></rect>"
            if i % labelEvery == 0 {
                svg += "<text x=\"\(left + i * slot + slot / 2)\" y=\"\(height - bottom + 16)\" text-anchor=\"middle\">\(HTMLPage.escape(String(day.key.dropFirst(5))))</text>"
            }
        }
        return svg + "</svg>\n"
    }

    /// Horizontal bars of total monthly cost, cheapest first.
    static func costChart(_ costs: [ProviderCost]) -> String {
        let rowH = 24, left = 230, width = 1060, height = max(1, costs.count) * rowH + 10
        let plotW = width - left - 90
        let maxCents = max(1, costs.map(\.total.cents).max() ?? 1)
        var svg = "<svg width=\"\(width)\" height=\"\(height)\" viewBox=\"0 0 \(width) \(height)\" role=\"img\" aria-label=\"cost per provider\">"
        for (i, c) in costs.enumerated() {
            let y = 5 + i * rowH
            let w = Int(Int128(c.total.cents) * Int128(plotW) / Int128(maxCents))
            let label = c.id + (c.verified ? "" : " *")
            svg += "<text x=\"\(left - 8)\" y=\"\(y + 16)\" text-anchor=\"end\">\(HTMLPage.escape(label))</text>"
            svg += "<rect x=\"\(left)\" y=\"\(y + 3)\" width=\"\(max(1, w))\" height=\"\(rowH - 6)\" fill=\"\(c.verified ? "#2f9e72" : "#d9a441")\"/>"
            svg += "<text x=\"\(left + max(1, w) + 6)\" y=\"\(y + 16)\">$\(c.total)</text>"
        }
        svg += "</svg>\n"
        return svg + "<p class=\"note\"><span style=\"color:#2f9e72\">■</span> verified prices · <span style=\"color:#d9a441\">■</span> * unverified price or traffic beyond the published tiers</p>\n"
    }

    /// The smallest 1, 2 or 5 × 10^k (times 4 grid steps) at or above `value`, so axis labels are round.
    static func niceCeiling(_ value: Int64) -> Int64 {
        var scale: Int64 = 1
        while scale <= Int64.max / 40 {
            for m: Int64 in [1, 2, 5] where m * scale * 4 >= value { return m * scale * 4 }
            scale *= 10
        }
        return max(1, value)
    }

    public static func costTable(_ costs: [ProviderCost], caption: String) -> String {
        var t = "<table><caption>\(HTMLPage.escape(caption))</caption><tr><th>provider</th><th>egress</th><th>unit</th><th>egress $</th><th>requests $</th><th>fixed $</th><th>total $</th><th>as of</th></tr>"
        for c in costs {
            t += "<tr><td title=\"\(HTMLPage.escape(c.name))\">\(HTMLPage.escape(c.id + (c.verified ? "" : " *")))</td><td class=\"n\">\(c.egressGB(places: 2))</td><td>\(ProviderTable.unitName(c))</td>"
            t += "<td class=\"n\">\(c.egress)</td><td class=\"n\">\(c.requests)</td><td class=\"n\">\(c.fixed)</td><td class=\"n\"><b>\(c.total)</b></td><td>\(HTMLPage.escape(c.asOf))</td></tr>"
        }
        return t + "</table>\n"
    }

    static func trafficTable(_ title: String, _ rows: [ReportSummary.Row]) -> String {
        var t = "<table><caption>By \(HTMLPage.escape(title.lowercased()))</caption><tr><th>\(HTMLPage.escape(title))</th><th>bytes</th><th>requests</th></tr>"
        for row in rows {
            t += "<tr><td>\(HTMLPage.escape(row.key))</td><td class=\"n\" title=\"\(row.traffic.bytes) B\">\(ByteFormat.human(row.traffic.bytes))</td><td class=\"n\">\(ByteFormat.grouped(row.traffic.requests))</td></tr>"
        }
        return t + "</table>"
    }
}

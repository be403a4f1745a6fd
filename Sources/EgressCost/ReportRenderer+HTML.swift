/// The HTML report: one self-contained page (inline CSS and SVG; no scripts, no external
/// assets), so it can be mailed or archived and opens the same anywhere.
extension ReportRenderer {
    public static func html(_ r: ReportSummary) -> String {
        var body = "<h1>modeld egress cost report</h1>\n"
        body += "<p class=\"sub\">\(HTML.escape(periodText(r))) · free tier \(r.freeTier ? "on" : "off") · GB = \(HTML.escape(EstimateRenderer.gbUnitText(r.gbUnit)))</p>\n"
        body += "<div class=\"cards\">"
        body += card("Served", ByteFormat.human(r.total.bytes), "\(ByteFormat.grouped(r.total.requests)) requests")
        body += card("Monthly projection", ByteFormat.human(r.projection.bytes), "\(ByteFormat.grouped(r.projection.requests)) requests")
        body += card("304 Not Modified", ByteFormat.grouped(r.notModified), "≈ \(ByteFormat.human(r.bytesSaved)) not re-sent")
        body += card("Range resumes (206)", ByteFormat.grouped(r.rangeResumes.requests), ByteFormat.human(r.rangeResumes.bytes))
        if let cheapest = r.projectedCost.first {
            body += card("Cheapest per month", "$" + cheapest.total.description, cheapest.id)
        }
        body += "</div>\n"

        body += "<h2>Bytes served per day</h2>\n" + dailyChart(r.byDay)
        body += "<h2>Projected monthly cost per provider</h2>\n" + costChart(r.projectedCost)
        body += costTable(r.projectedCost, caption: "Monthly projection (mean of \(r.coveredDays) covered day\(r.coveredDays == 1 ? "" : "s") × 30)")
        body += costTable(r.cost, caption: "Logged traffic priced as one month")
        body += "<div class=\"cols\">"
        body += trafficTable("Model", r.byModel) + trafficTable("Route", r.byRoute)
        body += "</div>\n"
        body += trafficTable("Day", r.byDay)
        if r.cost.contains(where: { !$0.verified }) {
            body += "<p class=\"note\">* unverified price or traffic beyond the published tiers (see config/pricing.json).</p>\n"
        }
        return """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>modeld egress cost report</title>
        <style>\(css)</style></head>
        <body>
        \(body)</body></html>

        """
    }

    static let css = """
    body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1f2933;margin:32px auto;max-width:1100px;padding:0 16px}
    h1{font-size:24px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px}
    .sub{color:#52606d;margin:0 0 16px}.note{color:#52606d;font-size:12px}
    .cards{display:flex;gap:12px;flex-wrap:wrap}
    .card{border:1px solid #d9e2ec;border-radius:8px;padding:10px 14px;min-width:170px;background:#f8fafc}
    .card .k{color:#52606d;font-size:12px}.card .v{font-size:20px;font-weight:600}.card .d{color:#52606d;font-size:12px}
    table{border-collapse:collapse;margin:8px 0 16px;font-variant-numeric:tabular-nums}
    caption{text-align:left;font-weight:600;padding:4px 0}
    th,td{padding:3px 10px;border-bottom:1px solid #e4e7eb}th{text-align:left;background:#f0f4f8}
    td.n{text-align:right}.cols{display:flex;gap:32px;flex-wrap:wrap}
    svg text{font:12px system-ui,sans-serif;fill:#334e68}
    """

    static func card(_ key: String, _ value: String, _ detail: String) -> String {
        "<div class=\"card\"><div class=\"k\">\(HTML.escape(key))</div><div class=\"v\">\(HTML.escape(value))</div><div class=\"d\">\(HTML.escape(detail))</div></div>"
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
            svg += "<rect x=\"\(x)\" y=\"\(top + plotH - h)\" width=\"\(max(1, slot - 2 * max(1, slot / 8)))\" height=\"\(h)\" fill=\"#3e7cb1\"><title>\(HTML.escape(day.key)): \(ByteFormat.human(day.traffic.bytes))</title></rect>"
            if i % labelEvery == 0 {
                svg += "<text x=\"\(left + i * slot + slot / 2)\" y=\"\(height - bottom + 16)\" text-anchor=\"middle\">\(HTML.escape(String(day.key.dropFirst(5))))</text>"
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
            svg += "<text x=\"\(left - 8)\" y=\"\(y + 16)\" text-anchor=\"end\">\(HTML.escape(label))</text>"
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

    static func costTable(_ costs: [ProviderCost], caption: String) -> String {
        var t = "<table><caption>\(HTML.escape(caption))</caption><tr><th>provider</th><th>egress</th><th>unit</th><th>egress $</th><th>requests $</th><th>fixed $</th><th>total $</th><th>as of</th></tr>"
        for c in costs {
            t += "<tr><td title=\"\(HTML.escape(c.name))\">\(HTML.escape(c.id + (c.verified ? "" : " *")))</td><td class=\"n\">\(c.egressGB(places: 2))</td><td>\(ProviderTable.unitName(c))</td>"
            t += "<td class=\"n\">\(c.egress)</td><td class=\"n\">\(c.requests)</td><td class=\"n\">\(c.fixed)</td><td class=\"n\"><b>\(c.total)</b></td><td>\(HTML.escape(c.asOf))</td></tr>"
        }
        return t + "</table>\n"
    }

    static func trafficTable(_ title: String, _ rows: [ReportSummary.Row]) -> String {
        var t = "<table><caption>By \(HTML.escape(title.lowercased()))</caption><tr><th>\(HTML.escape(title))</th><th>bytes</th><th>requests</th></tr>"
        for row in rows {
            t += "<tr><td>\(HTML.escape(row.key))</td><td class=\"n\" title=\"\(row.traffic.bytes) B\">\(ByteFormat.human(row.traffic.bytes))</td><td class=\"n\">\(ByteFormat.grouped(row.traffic.requests))</td></tr>"
        }
        return t + "</table>"
    }
}

import JSONSupport

/// Renders a `ReportSummary` as text, JSON or CSV (HTML in ReportRenderer+HTML.swift).
public enum ReportRenderer {
    public static func table(_ r: ReportSummary) -> String {
        var out = "Access-log cost report: \(periodText(r))\n"
        out += "Served \(ByteFormat.human(r.total.bytes)) in \(ByteFormat.requests(r.total.requests))\n"
        out += "304 Not Modified: \(ByteFormat.grouped(r.notModified)), ≈ \(ByteFormat.human(r.bytesSaved)) not re-sent"
        out += r.notModifiedUnknownSize > 0 ? " (\(r.notModifiedUnknownSize) of unknown size)\n" : "\n"
        out += "Range resumes (206): \(ByteFormat.grouped(r.rangeResumes.requests)), \(ByteFormat.human(r.rangeResumes.bytes))\n"
        for (title, rows) in [("day", r.byDay), ("model", r.byModel), ("route", r.byRoute)] where !rows.isEmpty {
            var t = TextTable([(title, .left), ("bytes", .right), ("≈", .right), ("requests", .right)])
            for row in rows {
                t.append([row.key, ByteFormat.grouped(row.traffic.bytes), ByteFormat.human(row.traffic.bytes),
                          ByteFormat.grouped(row.traffic.requests)])
            }
            out += "\nBy \(title)\n" + t.render()
        }
        out += "\nCost of the logged traffic, priced as one month (free tier \(r.freeTier ? "on" : "off"), GB = \(EstimateRenderer.gbUnitText(r.gbUnit)))\n"
        out += ProviderTable.text(r.cost)
        out += "\nMonthly projection: \(ByteFormat.human(r.projection.bytes)), \(ByteFormat.requests(r.projection.requests))"
        out += " (mean of \(r.coveredDays) covered day\(r.coveredDays == 1 ? "" : "s") × 30)\n"
        out += ProviderTable.text(r.projectedCost)
        return out
    }

    public static func json(_ r: ReportSummary) -> String {
        func optional(_ s: String?) -> String { s.map(JSONString.quoted) ?? "null" }
        func rows(_ rows: [ReportSummary.Row], key: String) -> String {
            "[" + rows.map { "{\(JSONString.quoted(key)):\(JSONString.quoted($0.key)),\"bytes\":\($0.traffic.bytes),\"requests\":\($0.traffic.requests)}" }
                .joined(separator: ",") + "]"
        }
        let parts = [
            "\"period\":{\"since\":\(optional(r.since)),\"until\":\(optional(r.until)),\"first_day\":\(optional(r.firstDay)),\"last_day\":\(optional(r.lastDay)),\"covered_days\":\(r.coveredDays)}",
            "\"totals\":{\"bytes\":\(r.total.bytes),\"requests\":\(r.total.requests)}",
            "\"by_day\":" + rows(r.byDay, key: "day"),
            "\"by_model\":" + rows(r.byModel, key: "model_id"),
            "\"by_route\":" + rows(r.byRoute, key: "route"),
            "\"not_modified\":{\"count\":\(r.notModified),\"bytes_saved\":\(r.bytesSaved),\"unknown_size\":\(r.notModifiedUnknownSize)}",
            "\"range_resumes\":{\"count\":\(r.rangeResumes.requests),\"bytes\":\(r.rangeResumes.bytes)}",
            "\"free_tier\":\(r.freeTier)", "\"gb_unit\":\(JSONString.quoted(r.gbUnit.rawValue))",
            "\"providers\":" + ProviderTable.json(r.cost),
            "\"projection\":{\"monthly_bytes\":\(r.projection.bytes),\"monthly_requests\":\(r.projection.requests),\"providers\":\(ProviderTable.json(r.projectedCost))}",
        ]
        return "{" + parts.joined(separator: ",") + "}\n"
    }

    /// One table: `section` says what a row is (day, model, route, not_modified, range_resume,
    /// total, projection, cost, projected_cost); unused columns stay empty.
    public static func csv(_ r: ReportSummary) -> String {
        var out = CSV.line(["section", "key", "bytes", "requests"] + ProviderTable.csvHeader.dropFirst())
        let blank = Array(repeating: "", count: ProviderTable.csvHeader.count - 1)
        func traffic(_ section: String, _ key: String, _ bytes: Int64, _ requests: Int64) {
            out += CSV.line([section, key, String(bytes), String(requests)] + blank)
        }
        for row in r.byDay { traffic("day", row.key, row.traffic.bytes, row.traffic.requests) }
        for row in r.byModel { traffic("model", row.key, row.traffic.bytes, row.traffic.requests) }
        for row in r.byRoute { traffic("route", row.key, row.traffic.bytes, row.traffic.requests) }
        traffic("not_modified", "304", r.bytesSaved, r.notModified)
        traffic("range_resume", "206", r.rangeResumes.bytes, r.rangeResumes.requests)
        traffic("total", "", r.total.bytes, r.total.requests)
        traffic("projection", "month", r.projection.bytes, r.projection.requests)
        for (section, costs) in [("cost", r.cost), ("projected_cost", r.projectedCost)] {
            for c in costs {
                let f = ProviderTable.csvFields(c)
                out += CSV.line([section, c.id, "", ""] + f.dropFirst())
            }
        }
        return out
    }

    static func periodText(_ r: ReportSummary) -> String {
        guard let first = r.firstDay, let last = r.lastDay else { return "no traffic in range" }
        return "\(first) … \(last) (\(r.coveredDays) day\(r.coveredDays == 1 ? "" : "s") with traffic)"
    }
}

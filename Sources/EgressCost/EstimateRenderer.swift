import JSONSupport

/// Output formats of `modelctl cost estimate` and `cost report`.
public enum OutputFormat: String, CaseIterable, Sendable {
    case table, json, csv, html
}

/// Renders an `Estimate` (SPEC §7.2). Unverified prices carry `*` in the table and
/// `"verified": false` in JSON and CSV.
public enum EstimateRenderer {
    public static func table(_ e: Estimate) -> String {
        let i = e.inputs
        var head = "Monthly egress estimate: \(ByteFormat.grouped(i.downloads)) downloads × \(ByteFormat.human(i.sizeBytes))"
        if i.transferRatio != .all { head += " × transfer ratio \(i.transferRatio)" }
        if i.polls > 0 {
            head += " + \(ByteFormat.grouped(i.checks)) update checks × \(ByteFormat.grouped(i.checkBytes)) B"
            if i.modelsPerInstall > 1 || i.batched {
                head += i.batched ? " (\(i.modelsPerInstall) models per install, one batched check per poll)"
                    : " (\(i.modelsPerInstall) models per install, one check each per poll)"
            }
        }
        head += " = \(ByteFormat.human(e.traffic.bytes)), \(ByteFormat.grouped(e.traffic.requests)) requests\n"
        head += "Free tier \(i.freeTier ? "on" : "off"); GB = \(gbUnitText(i.gbUnit)); each line rounded half-up to cents.\n"
        head += checksText(e)
        return head + "\n" + ProviderTable.text(e.providers, server: showsServer(i))
    }

    /// Where the checks went, in words: only when a ratio, server mode or a server cost was asked for,
    /// so the plain estimate reads as before.
    static func checksText(_ e: Estimate) -> String {
        let i = e.inputs
        guard showsServer(i) || i.cdnHitRatio != .none else { return "" }
        let misses = i.checks - i.cdnHitRatio.hits(of: i.checks)
        var out = "Update checks: \(i.checkMode.rawValue) mode, CDN hit ratio \(i.cdnHitRatio): CDN rows bill all "
            + "\(ByteFormat.grouped(i.checks)), "
        switch i.checkMode {
        case .static:
            out += "bucket rows the \(ByteFormat.grouped(misses)) misses.\n"
        case .server:
            out += "bucket rows none; the \(ByteFormat.grouped(misses)) misses reach modeld"
            if let host = i.serverEgress { out += ", their answers priced as egress on \(host.id) (no free tier)" }
            out += ".\n"
        }
        if showsServer(i) { out += "server $ = \(i.serverMonthly) a month stated for modeld's machines + that egress.\n" }
        return out
    }

    static func showsServer(_ i: EstimateInputs) -> Bool { i.checkMode == .server || i.serverMonthly != .zero }

    public static func json(_ e: Estimate) -> String {
        let i = e.inputs
        let inputs = [
            "\"downloads\":\(i.downloads)", "\"size_bytes\":\(i.sizeBytes)", "\"installs\":\(i.installs)",
            "\"polls_per_day\":\(i.pollsPerDay)", "\"poll_bytes\":\(i.pollBytes)", "\"polls\":\(i.polls)",
            "\"models_per_install\":\(i.modelsPerInstall)", "\"batched\":\(i.batched)", "\"checks\":\(i.checks)",
            "\"check_bytes\":\(i.checkBytes)",
            "\"egress_bytes\":\(e.traffic.bytes)", "\"requests\":\(e.traffic.requests)",
            "\"free_tier\":\(i.freeTier)", "\"gb_unit\":\(JSONString.quoted(i.gbUnit.rawValue))", "\"period\":\"month\"",
            "\"mode\":\(JSONString.quoted(i.checkMode.rawValue))", "\"cdn_hit_ratio\":\(i.cdnHitRatio)", "\"transfer_ratio\":\(i.transferRatio)",
            "\"cache_misses\":\(i.checks - i.cdnHitRatio.hits(of: i.checks))", "\"server_monthly_usd\":\(i.serverMonthly)",
            "\"server_egress\":\(i.serverEgress.map { JSONString.quoted($0.id) } ?? "null")",
        ]
        let rows = e.providers.map {
            ProviderTable.jsonObject($0, extra: ["\"checks_billed\":\($0.checksBilled)", "\"server_egress_bytes\":\($0.serverEgressBytes)"])
        }
        return "{\"inputs\":{" + inputs.joined(separator: ",") + "},\"providers\":[" + rows.joined(separator: ",") + "]}\n"
    }

    public static func csv(_ e: Estimate) -> String { ProviderTable.csv(e.providers) }

    static func gbUnitText(_ unit: GBUnit) -> String {
        switch unit {
        case .provider: "each provider's own (GB = 10^9 B, GiB = 2^30 B)"
        case .si: "10^9 bytes for every provider"
        case .binary: "2^30 bytes for every provider"
        }
    }
}

/// The per-provider cost rows shared by estimates and reports.
enum ProviderTable {
    static func unitName(_ c: ProviderCost) -> String { c.bytesPerGB == 1 << 30 ? "GiB" : "GB" }

    /// `server` adds the `server $` column (estimates that state or imply a server).
    static func text(_ costs: [ProviderCost], server: Bool = false) -> String {
        var columns: [(String, TextTable.Alignment)] = [("provider", .left), ("egress", .right), ("unit", .left), ("egress $", .right),
                                                        ("requests $", .right), ("fixed $", .right)]
        if server { columns.append(("server $", .right)) }
        var t = TextTable(columns + [("total $", .right), ("as of", .left)])
        for c in costs {
            var cells = [c.id + (c.verified ? "" : " *"), c.egressGB(places: 2), unitName(c), c.egress.description,
                         c.requests.description, c.fixed.description]
            if server { cells.append(c.server.description) }
            t.append(cells + [c.total.description, c.asOf])
        }
        var out = t.render()
        if costs.contains(where: { !$0.verified }) {
            out += "* unverified price or traffic beyond the published tiers (see config/pricing.json)\n"
        }
        return out
    }

    static func jsonObject(_ c: ProviderCost, extra: [String] = []) -> String {
        let fields = [
            "\"id\":\(JSONString.quoted(c.id))", "\"name\":\(JSONString.quoted(c.name))",
            "\"egress_gb\":\(FixedPoint.trimmed(c.egressGB(places: 6)))", "\"gb_bytes\":\(c.bytesPerGB)",
            "\"egress_usd\":\(c.egress)", "\"requests_usd\":\(c.requests)", "\"fixed_usd\":\(c.fixed)",
            "\"total_usd\":\(c.total)", "\"verified\":\(c.verified)", "\"as_of\":\(JSONString.quoted(c.asOf))",
            "\"server_usd\":\(c.server)",
        ] + extra
        return "{" + fields.joined(separator: ",") + "}"
    }

    static func json(_ costs: [ProviderCost]) -> String { "[" + costs.map { jsonObject($0) }.joined(separator: ",") + "]" }

    static let csvHeader = ["id", "name", "egress_gb", "gb_bytes", "egress_usd", "requests_usd", "fixed_usd", "total_usd", "verified", "as_of", "server_usd"]

    static func csvFields(_ c: ProviderCost) -> [String] {
        [c.id, c.name, FixedPoint.trimmed(c.egressGB(places: 6)), String(c.bytesPerGB), c.egress.description,
         c.requests.description, c.fixed.description, c.total.description, String(c.verified), c.asOf, c.server.description]
    }

    static func csv(_ costs: [ProviderCost]) -> String {
        CSV.line(csvHeader) + costs.map { CSV.line(csvFields($0)) }.joined()
    }
}

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
        if i.polls > 0 {
            head += " + \(ByteFormat.grouped(i.polls)) update checks × \(i.pollBytes) B"
        }
        head += " = \(ByteFormat.human(e.traffic.bytes)), \(ByteFormat.grouped(e.traffic.requests)) requests\n"
        head += "Free tier \(i.freeTier ? "on" : "off"); GB = \(gbUnitText(i.gbUnit)); each line rounded half-up to cents.\n\n"
        return head + ProviderTable.text(e.providers)
    }

    public static func json(_ e: Estimate) -> String {
        let i = e.inputs
        let inputs = [
            "\"downloads\":\(i.downloads)", "\"size_bytes\":\(i.sizeBytes)", "\"installs\":\(i.installs)",
            "\"polls_per_day\":\(i.pollsPerDay)", "\"poll_bytes\":\(i.pollBytes)", "\"polls\":\(i.polls)",
            "\"egress_bytes\":\(e.traffic.bytes)", "\"requests\":\(e.traffic.requests)",
            "\"free_tier\":\(i.freeTier)", "\"gb_unit\":\(JSONString.quoted(i.gbUnit.rawValue))", "\"period\":\"month\"",
        ]
        return "{\"inputs\":{" + inputs.joined(separator: ",") + "},\"providers\":" + ProviderTable.json(e.providers) + "}\n"
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

    static func text(_ costs: [ProviderCost]) -> String {
        var t = TextTable([("provider", .left), ("egress", .right), ("unit", .left), ("egress $", .right),
                           ("requests $", .right), ("fixed $", .right), ("total $", .right), ("as of", .left)])
        for c in costs {
            t.append([c.id + (c.verified ? "" : " *"), c.egressGB(places: 2), unitName(c), c.egress.description,
                      c.requests.description, c.fixed.description, c.total.description, c.asOf])
        }
        var out = t.render()
        if costs.contains(where: { !$0.verified }) {
            out += "* unverified price or traffic beyond the published tiers (see config/pricing.json)\n"
        }
        return out
    }

    static func jsonObject(_ c: ProviderCost) -> String {
        let fields = [
            "\"id\":\(JSONString.quoted(c.id))", "\"name\":\(JSONString.quoted(c.name))",
            "\"egress_gb\":\(FixedPoint.trimmed(c.egressGB(places: 6)))", "\"gb_bytes\":\(c.bytesPerGB)",
            "\"egress_usd\":\(c.egress)", "\"requests_usd\":\(c.requests)", "\"fixed_usd\":\(c.fixed)",
            "\"total_usd\":\(c.total)", "\"verified\":\(c.verified)", "\"as_of\":\(JSONString.quoted(c.asOf))",
        ]
        return "{" + fields.joined(separator: ",") + "}"
    }

    static func json(_ costs: [ProviderCost]) -> String { "[" + costs.map(jsonObject).joined(separator: ",") + "]" }

    static let csvHeader = ["id", "name", "egress_gb", "gb_bytes", "egress_usd", "requests_usd", "fixed_usd", "total_usd", "verified", "as_of"]

    static func csvFields(_ c: ProviderCost) -> [String] {
        [c.id, c.name, FixedPoint.trimmed(c.egressGB(places: 6)), String(c.bytesPerGB), c.egress.description,
         c.requests.description, c.fixed.description, c.total.description, String(c.verified), c.asOf]
    }

    static func csv(_ costs: [ProviderCost]) -> String {
        CSV.line(csvHeader) + costs.map { CSV.line(csvFields($0)) }.joined()
    }
}

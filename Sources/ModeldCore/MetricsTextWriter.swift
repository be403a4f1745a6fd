// Prometheus text exposition format 0.0.4: `# HELP` / `# TYPE` once per family before its
// samples, escaped label values, Go-style float spelling (`+Inf`, `NaN`).

public struct MetricsTextWriter {
    public private(set) var text = ""

    public init() {}

    public enum Kind: String { case counter, gauge, histogram }

    public mutating func family(_ name: String, _ kind: Kind, help: String) {
        text += "# HELP \(name) \(Self.escapeHelp(help))\n# TYPE \(name) \(kind.rawValue)\n"
    }

    /// A family of one sample: most of modeld's metrics.
    public mutating func single(_ name: String, _ kind: Kind, help: String, labels: KeyValuePairs<String, String> = [:], _ value: Int) {
        family(name, kind, help: help)
        sample(name, labels: labels, value)
    }

    public mutating func sample(_ name: String, labels: KeyValuePairs<String, String> = [:], _ value: Int) {
        line(name, labels.map { ($0.key, $0.value) }, String(value))
    }

    public mutating func sample(_ name: String, labels: KeyValuePairs<String, String> = [:], _ value: Double) {
        line(name, labels.map { ($0.key, $0.value) }, Self.format(value))
    }

    /// `_bucket{le=…}` cumulative with `+Inf`, then `_sum` and `_count`.
    public mutating func histogram(_ name: String, _ histogram: MetricsHistogram) {
        let snapshot = histogram.snapshot()
        let bounds = histogram.bounds.map(Self.format) + ["+Inf"]
        for (bound, count) in zip(bounds, snapshot.cumulative) {
            line("\(name)_bucket", [("le", bound)], String(count))
        }
        line("\(name)_sum", [], Self.format(snapshot.sumSeconds))
        line("\(name)_count", [], String(snapshot.count))
    }

    private mutating func line(_ name: String, _ labels: [(String, String)], _ value: String) {
        text += name
        if !labels.isEmpty {
            text += "{" + labels.map { "\($0.0)=\"\(Self.escapeLabel($0.1))\"" }.joined(separator: ",") + "}"
        }
        text += " \(value)\n"
    }

    static func format(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        return value.description
    }

    static func escapeLabel(_ value: String) -> String { escape(value, quote: true) }

    static func escapeHelp(_ value: String) -> String { escape(value, quote: false) }

    /// Backslash and newline always; the double quote only where it would end a label value.
    private static func escape(_ value: String, quote: Bool) -> String {
        var out = ""
        for character in value.unicodeScalars {
            switch character {
            case "\\": out += "\\\\"
            case "\"" where quote: out += "\\\""
            case "\n": out += "\\n"
            default: out.unicodeScalars.append(character)
            }
        }
        return out
    }
}

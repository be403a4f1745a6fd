import JSONSupport

/// Outcome rates per group with 95% Wilson score intervals (SPEC §7.3): how a challenger model
/// compares with the baseline.
public struct OutcomeStats {
    public struct Outcome: Equatable, Sendable {
        public let value: String
        public let count: Int
        public let rate: Double
        public let low: Double
        public let high: Double
    }

    public struct Group: Equatable, Sendable {
        public let key: String
        public let events: Int
        public let outcomes: [Outcome]
    }

    /// z for a two-sided 95% interval.
    public static let z95 = 1.959964
    /// The group or outcome of an event that lacks the field.
    public static let missing = "(none)"

    public let groupField: String
    public let outcomeField: String
    public let name: String?
    private var counts: [String: (events: Int, outcomes: [String: Int])] = [:]

    public init(groupField: String = "model_id", outcomeField: String = "outcome", name: String? = nil) {
        self.groupField = groupField
        self.outcomeField = outcomeField
        self.name = name
    }

    public mutating func add(_ event: JSONValue) {
        if let name, event["name"]?.stringValue != name { return }
        let group = Self.label(event[groupField])
        var entry = counts[group] ?? (0, [:])
        entry.events += 1
        entry.outcomes[Self.label(event[outcomeField]), default: 0] += 1
        counts[group] = entry
    }

    /// Groups by key, outcomes by descending count then value.
    public var groups: [Group] {
        counts.keys.sorted().map { key in
            let entry = counts[key]!
            let outcomes = entry.outcomes.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.map { value, count in
                let interval = Self.wilson(successes: count, trials: entry.events)
                return Outcome(value: value, count: count, rate: Double(count) / Double(entry.events),
                               low: interval.low, high: interval.high)
            }
            return Group(key: key, events: entry.events, outcomes: outcomes)
        }
    }

    /// Wilson score interval for `successes` out of `trials` (0...0 for no trials).
    public static func wilson(successes: Int, trials: Int, z: Double = z95) -> (low: Double, high: Double) {
        guard trials > 0 else { return (0, 0) }
        let n = Double(trials), p = Double(successes) / n, z2 = z * z
        let centre = (p + z2 / (2 * n)) / (1 + z2 / n)
        let half = z / (1 + z2 / n) * (p * (1 - p) / n + z2 / (4 * n * n)).squareRoot()
        return (max(0, centre - half), min(1, centre + half))
    }

    private static func label(_ v: JSONValue?) -> String {
        switch v {
        case .string(let s)?: s
        case .bool(let b)?: b ? "true" : "false"
        case .number(let d)?: d == d.rounded() && abs(d) < 1e15 ? String(Int64(d)) : String(d)
        default: missing
        }
    }
}

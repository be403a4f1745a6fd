// The route label of SPEC §4.4, shared by metrics and the access log (SPEC §6).

public enum MetricsRoute: Int, Sendable, CaseIterable, CustomStringConvertible {
    case latest, check, events, models, admin, health, metrics, other

    /// The label value: `latest`, `check`, `events`, `models`, `admin`, `health`, `metrics`, `other`.
    public var name: String {
        switch self {
        case .latest: "latest"
        case .check: "check"
        case .events: "events"
        case .models: "models"
        case .admin: "admin"
        case .health: "health"
        case .metrics: "metrics"
        case .other: "other"
        }
    }

    public var description: String { name }
}

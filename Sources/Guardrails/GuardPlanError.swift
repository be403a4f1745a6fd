/// A guard that cannot be accepted, naming the offending field the way an operator wrote it
/// (`guard.stages[2]`, `guard.metric.kind`, `guard.alpha`). The admin API turns it into
/// 400 `invalid_parameter` with this field as the parameter (SPEC §11.1).
public struct GuardPlanError: Error, Hashable, Sendable, CustomStringConvertible {
    public let field: String
    public let message: String

    public init(_ field: String, _ message: String) {
        self.field = field
        self.message = message
    }

    public var description: String { "\(field): \(message)" }
}

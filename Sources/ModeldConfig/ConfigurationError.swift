// A configuration problem a user can act on: which key (in which file, env var or flag) and why.
// The executable prints `description` to stderr and exits 2 (SPEC §8).

public struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// e.g. `key "limits.max_connections" in config/modeld.json`, `environment variable MODELD_WORKERS`, `flag --port`.
    public var subject: String
    public var reason: String

    public init(subject: String, reason: String) {
        self.subject = subject
        self.reason = reason
    }

    /// The exit status for configuration and usage errors.
    public static let exitCode: Int32 = 2

    public var description: String { "configuration error: \(subject): \(reason)" }
}

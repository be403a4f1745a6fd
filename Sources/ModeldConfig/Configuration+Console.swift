// The `console` key (SPEC §8, §15), kept in its own file: `{"enabled": true, "session_hours": 12}`.

extension Configuration {
    /// The operator console: served only when enabled *and* an admin token is configured.
    public struct Console: Sendable, Equatable {
        public var enabled = true
        /// How long a sign-in lasts (cookie Max-Age and server-side expiry). A number, so a test
        /// can use a few seconds (0.001 h = 3.6 s); at least one second.
        public var sessionHours: Double = 12

        public init() {}

        public var sessionSeconds: Int { max(1, Int((sessionHours * 3_600).rounded())) }
    }
}

extension ConfigurationKey {
    static let console: [ConfigurationKey] = [
        ConfigurationKey(name: "console.enabled") { draft, input throws(ConfigurationValueError) in
            draft.configuration.console.enabled = try input.bool()
        },
        ConfigurationKey(name: "console.session_hours") { draft, input throws(ConfigurationValueError) in
            let hours = try input.number()
            guard hours >= 1.0 / 3_600, hours <= 8_760 else {
                throw ConfigurationValueError("\(hours) is out of range (1 second to 8760 hours)")
            }
            draft.configuration.console.sessionHours = hours
        },
    ]
}

extension ConfigurationInput {
    /// JSON true/false, or `true`/`false`/`1`/`0` from an env var or a flag.
    func bool() throws(ConfigurationValueError) -> Bool {
        switch self {
        case .json(.bool(let b)): return b
        case .text("true"), .text("1"): return true
        case .text("false"), .text("0"): return false
        case .text(let text): throw ConfigurationValueError("expected true or false, got \"\(text)\"")
        case .json(let other): throw ConfigurationValueError("expected true or false, got \(other.typeName)")
        }
    }

    func number() throws(ConfigurationValueError) -> Double {
        switch self {
        case .json(.integer(let n)): return Double(n)
        case .json(.number(let d)): return d
        case .text(let text):
            guard let d = Double(text), d.isFinite else { throw ConfigurationValueError("expected a number, got \"\(text)\"") }
            return d
        case .json(let other): throw ConfigurationValueError("expected a number, got \(other.typeName)")
        }
    }
}

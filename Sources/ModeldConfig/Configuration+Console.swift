// The `console` key (SPEC §8, §15), kept in its own file: `{"enabled": true, "session_hours": 12}`,
// and the two top-level keys only the console reads (SPEC §8 v5): `pricing_file` and
// `trusted_proxies`.

extension Configuration {
    /// The operator console: served only when enabled *and* an admin token is configured.
    public struct Console: Sendable, Equatable {
        public var enabled = true
        /// How long a sign-in lasts (cookie Max-Age and server-side expiry). A number, so a test
        /// can use a few seconds (0.001 h = 3.6 s); at least one second.
        public var sessionHours: Double = 12
        /// `pricing_file`: the cost view's price tables. A relative path is resolved from the
        /// config file's directory by `Configuration.load` (default `pricing.json` there).
        public var pricingFile = "pricing.json"
        /// `trusted_proxies`: peers whose `X-Forwarded-For` names the client address (the
        /// sign-in throttle's key); none by default.
        public var trustedProxies: [AddressRange] = []

        public init() {}

        /// `pricing_file` as the server opens it: relative to the directory of `configPath`
        /// (the file read, or the default path when none was), not the working directory.
        static func resolvedPricingFile(_ path: String, configPath: String) -> String {
            if path.hasPrefix("/") { return path }
            guard let slash = configPath.lastIndex(of: "/") else { return path }
            return String(configPath[...slash]) + path
        }

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
        ConfigurationKey(name: "pricing_file") { draft, input throws(ConfigurationValueError) in
            draft.configuration.console.pricingFile = try input.path()
        },
        ConfigurationKey(name: "trusted_proxies") { draft, input throws(ConfigurationValueError) in
            draft.configuration.console.trustedProxies = try input.addressRanges()
        },
    ]
}

extension ConfigurationInput {
    /// A JSON array of CIDR strings, or comma-separated ones from an env var (empty: none).
    func addressRanges() throws(ConfigurationValueError) -> [AddressRange] {
        var texts: [String] = []
        switch self {
        case .text(let text): texts = text.split(separator: ",").map { String($0) }
        case .json(.array(let items)): for item in items { texts.append(try ConfigurationInput.json(item).string()) }
        case .json(let other): throw ConfigurationValueError("expected an array of CIDR blocks, got \(other.typeName)")
        }
        var ranges: [AddressRange] = []
        for text in texts {
            guard let range = AddressRange(text) else {
                throw ConfigurationValueError("\"\(text)\" is not an IP address or CIDR block (e.g. 10.0.0.0/8, fd00::/8)")
            }
            ranges.append(range)
        }
        return ranges
    }

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

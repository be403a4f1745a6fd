@testable import ModeldConfig

/// For the config suites: `Configuration.load` with no flags, `env`, and `file` as
/// ./config/modeld.json.
protocol ConfigurationLoading {}

extension ConfigurationLoading {
    func load(file: String? = nil, env: [String: String] = [:]) throws(ConfigurationError) -> Configuration {
        let outcome = try Configuration.load(arguments: [], environment: env,
                                             readFile: { $0 == "config/modeld.json" ? file.map { Array($0.utf8) } : nil },
                                             hostName: "h")
        guard case .run(let c) = outcome else { fatalError("help") }
        return c
    }

    /// The refusal's message, nil when the configuration loads.
    func error(file: String? = nil, env: [String: String] = [:]) -> String? {
        do { _ = try load(file: file, env: env); return nil } catch { return error.description }
    }
}

// Layering (SPEC §8): defaults < config file < MODELD_* env < flags, every value validated and
// any problem reported as a ConfigurationError naming its key, env var or flag. Pure: the file
// system and the host name come in as parameters.

extension Configuration {
    public enum LoadOutcome: Sendable, Equatable {
        case run(Configuration)
        /// `--help` / `-h`: print this text to stdout and exit 0.
        case help(String)
    }

    /// Flags that set a key, and the key they set. `--config` and `--port` are handled apart.
    static let flagKeys: [String: String] = [
        "--listen": "listen", "--models-dir": "models_dir", "--data-dir": "data_dir",
        "--public-base-url": "public_base_url", "--instance-id": "instance_id", "--workers": "workers",
    ]

    /// - Parameters:
    ///   - arguments: the command line without the program name (`CommandLine.arguments.dropFirst()`).
    ///   - environment: the process environment; only `MODELD_<KEY>` names of known keys are read.
    ///   - readFile: the bytes of a file, or nil when it does not exist.
    ///   - hostName: the default `instance_id`.
    public static func load(
        arguments: [String],
        environment: [String: String],
        readFile: (String) throws -> [UInt8]?,
        hostName: String
    ) throws(ConfigurationError) -> LoadOutcome {
        if arguments.contains(where: { $0 == "--help" || $0 == "-h" }) { return .help(helpText) }
        let flags = try parseFlags(arguments)

        var draft = ConfigurationDraft(configuration: .defaults(hostName: hostName), accessLog: nil)
        var sources: [String] = []

        let explicitPath = flags.last { $0.flag == "--config" }?.value
        let path = explicitPath ?? defaultConfigPath
        let bytes: [UInt8]?
        do {
            bytes = try readFile(path)
        } catch {
            throw ConfigurationError(subject: "config file \(path)", reason: "cannot be read: \(error)")
        }
        if let bytes {
            try applyFile(bytes, path: path, to: &draft)
            sources.append(path)
        } else if explicitPath != nil {
            throw ConfigurationError(subject: "flag --config", reason: "\(path) does not exist")
        }

        let envNames = try applyEnvironment(environment, to: &draft)
        sources += envNames.map { "env \($0)" }

        for (flag, value) in flags where flag != "--config" && flag != "--port" {
            try apply(ConfigurationKey.byName[flagKeys[flag]!]!, .text(value), subject: "flag \(flag)", to: &draft)
            sources.append("flag \(flag)")
        }
        if let port = flags.last(where: { $0.flag == "--port" }) {
            guard let number = ListenAddress.parsePort(Substring(port.value)) else {
                throw ConfigurationError(subject: "flag --port", reason: "\"\(port.value)\" is not a port 0-65535")
            }
            draft.configuration.listen.port = number
            sources.append("flag --port")
        }

        var configuration = draft.configuration
        if let signing = configuration.signing, signing.keys.isEmpty {
            throw ConfigurationError(subject: "key \"signing.keys\"", reason: "signing needs 1-2 private key files (MODELD_SIGNING_KEYS=a.key,b.key)")
        }
        try configuration.ingest.validate()
        configuration.accessLog = switch draft.accessLog {
        case "-": .stdout
        case "off": .off
        case let path?: .file(path)
        case nil: .file("\(configuration.dataDir)/access-\(configuration.instanceID).log")
        }
        configuration.console.pricingFile = Console.resolvedPricingFile(configuration.console.pricingFile, configPath: path)
        configuration.sources = sources.isEmpty ? ["defaults"] : sources
        return .run(configuration)
    }

    // MARK: - Layers

    private static func parseFlags(_ arguments: [String]) throws(ConfigurationError) -> [(flag: String, value: String)] {
        var flags: [(flag: String, value: String)] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            guard argument.hasPrefix("--") else {
                throw ConfigurationError(subject: "argument \"\(argument)\"", reason: "unexpected; see --help")
            }
            let flag = argument.firstIndex(of: "=").map { String(argument[..<$0]) } ?? argument
            // An unknown flag is named as such before anything else is said about it.
            guard flagKeys[flag] != nil || flag == "--config" || flag == "--port" else {
                throw ConfigurationError(subject: "flag \(flag)", reason: "unknown flag; see --help")
            }
            let value: String
            if let equals = argument.firstIndex(of: "=") {
                value = String(argument[argument.index(after: equals)...])
            } else {
                guard index < arguments.count else {
                    throw ConfigurationError(subject: "flag \(argument)", reason: "needs a value")
                }
                value = arguments[index]
                index += 1
            }
            flags.append((flag, value))
        }
        return flags
    }

    private static func applyFile(_ bytes: [UInt8], path: String, to draft: inout ConfigurationDraft) throws(ConfigurationError) {
        let object: [String: ConfigurationJSON]
        do {
            object = try ConfigurationJSON.parseObject(bytes)
        } catch {
            throw ConfigurationError(subject: "config file \(path)", reason: error.reason)
        }
        var entries: [(name: String, value: ConfigurationJSON)] = []
        for (name, value) in object {
            if ConfigurationKey.sections.contains(name) {
                if name == "signing" && value == .null { continue }   // explicit null = unsigned
                guard case .object(let members) = value else {
                    throw ConfigurationError(subject: "key \"\(name)\" in \(path)", reason: "expected an object, got \(value.typeName)")
                }
                if name == "signing" && members["keys"] == nil {
                    throw ConfigurationError(subject: "key \"signing.keys\" in \(path)", reason: "required: 1-2 private key files")
                }
                entries += members.map { ("\(name).\($0.key)", $0.value) }
            } else {
                entries.append((name, value))
            }
        }
        let names = Set(entries.lazy.filter { !$0.value.isNullJSON }.map(\.name))
        if names.contains("admin_token") && names.contains("admin_token_file") {
            throw ConfigurationError(subject: "key \"admin_token\" in \(path)", reason: "set admin_token or admin_token_file, not both")
        }
        for (name, value) in entries.sorted(by: { $0.name < $1.name }) {
            let subject = "key \"\(name)\" in \(path)"
            guard let key = ConfigurationKey.byName[name] else {
                throw ConfigurationError(subject: subject, reason: "unknown key")
            }
            try apply(key, .json(value), subject: subject, to: &draft)
        }
    }

    /// Returns the names of the variables that were applied, sorted.
    private static func applyEnvironment(_ environment: [String: String], to draft: inout ConfigurationDraft) throws(ConfigurationError) -> [String] {
        // Empty values count as unset, so `MODELD_X=${X:-}` in a compose file is harmless.
        let applied = environment
            .filter { ConfigurationKey.byEnvironmentName[$0.key] != nil && !$0.value.isEmpty }
            .sorted { $0.key < $1.key }
        if environment["MODELD_ADMIN_TOKEN", default: ""] != "" && environment["MODELD_ADMIN_TOKEN_FILE", default: ""] != "" {
            throw ConfigurationError(subject: "environment variable MODELD_ADMIN_TOKEN",
                                     reason: "set MODELD_ADMIN_TOKEN or MODELD_ADMIN_TOKEN_FILE, not both")
        }
        for (name, value) in applied {
            try apply(ConfigurationKey.byEnvironmentName[name]!, .text(value), subject: "environment variable \(name)", to: &draft)
        }
        return applied.map(\.key)
    }

    private static func apply(_ key: ConfigurationKey, _ input: ConfigurationInput, subject: String,
                              to draft: inout ConfigurationDraft) throws(ConfigurationError) {
        do {
            try key.apply(&draft, input)
        } catch {
            throw ConfigurationError(subject: subject, reason: error.reason)
        }
    }
}

private extension ConfigurationJSON {
    var isNullJSON: Bool { self == .null }
}

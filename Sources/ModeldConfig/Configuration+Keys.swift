// Every configuration key once: its name, how a value is checked and where it lands. The file,
// env and flag layers all go through this table, so a key is validated the same way everywhere.

/// One layer's value for a key: JSON from the file, text from an env var or a flag.
enum ConfigurationInput {
    case json(ConfigurationJSON)
    case text(String)
}

/// The configuration while layers are applied; `access_log` is resolved last because its
/// default depends on `data_dir` and `instance_id`.
struct ConfigurationDraft {
    var configuration: Configuration
    var accessLog: String?
}

struct ConfigurationKey: Sendable {
    /// Dotted name as in the file: `listen`, `limits.max_connections`.
    let name: String
    let apply: @Sendable (inout ConfigurationDraft, ConfigurationInput) throws(ConfigurationValueError) -> Void

    /// `MODELD_<KEY>` / `MODELD_LIMITS_<KEY>`.
    var environmentName: String {
        "MODELD_" + name.replacingDotsWithUnderscores().uppercased()
    }

    static let all: [ConfigurationKey] = [
        ConfigurationKey(name: "listen") { draft, input throws(ConfigurationValueError) in
            let text = try input.string()
            guard let address = Configuration.ListenAddress.parse(text) else {
                throw ConfigurationValueError(
                    "\"\(text)\" is not HOST:PORT with an IP address and a port 0-65535 (e.g. 0.0.0.0:8080, [::]:8080)")
            }
            draft.configuration.listen = address
        },
        ConfigurationKey(name: "public_base_url") { draft, input throws(ConfigurationValueError) in
            draft.configuration.publicBaseURL = try input.isNull ? nil : publicBaseURL(input.string())
        },
        ConfigurationKey(name: "models_dir") { draft, input throws(ConfigurationValueError) in
            draft.configuration.modelsDir = try input.path()
        },
        ConfigurationKey(name: "data_dir") { draft, input throws(ConfigurationValueError) in
            draft.configuration.dataDir = try input.path()
        },
        ConfigurationKey(name: "admin_token") { draft, input throws(ConfigurationValueError) in
            draft.configuration.adminToken = try input.isNull ? nil : .token(adminToken(input.string()))
        },
        ConfigurationKey(name: "admin_token_file") { draft, input throws(ConfigurationValueError) in
            draft.configuration.adminToken = try input.isNull ? nil : .file(input.path())
        },
        ConfigurationKey(name: "instance_id") { draft, input throws(ConfigurationValueError) in
            draft.configuration.instanceID = try instanceID(input.string())
        },
        ConfigurationKey(name: "latest_max_age_seconds") { draft, input throws(ConfigurationValueError) in
            draft.configuration.latestMaxAgeSeconds = try input.int(0...31_536_000)
        },
        ConfigurationKey(name: "workers") { draft, input throws(ConfigurationValueError) in
            draft.configuration.workers = try input.int(0...256)
        },
        ConfigurationKey(name: "retired_grace_days") { draft, input throws(ConfigurationValueError) in
            draft.configuration.retiredGraceDays = try input.int(0...3_650)
        },
        ConfigurationKey(name: "dedup_window_hours") { draft, input throws(ConfigurationValueError) in
            draft.configuration.dedupWindowHours = try input.int(1...8_760)
        },
        ConfigurationKey(name: "events_segment_max_seconds") { draft, input throws(ConfigurationValueError) in
            draft.configuration.eventsSegmentMaxSeconds = try input.int(1...86_400)
        },
        ConfigurationKey(name: "patch_bases") { draft, input throws(ConfigurationValueError) in
            draft.configuration.patchBases = try input.int(0...16)
        },
        ConfigurationKey(name: "pack_at_publish") { draft, input throws(ConfigurationValueError) in
            draft.configuration.packAtPublish = try input.bool()
        },
        ConfigurationKey(name: "drain_seconds") { draft, input throws(ConfigurationValueError) in
            draft.configuration.drainSeconds = try input.int(0...3_600)
        },
        ConfigurationKey(name: "guard_interval_seconds") { draft, input throws(ConfigurationValueError) in
            draft.configuration.guardIntervalSeconds = try input.int(1...86_400)
        },
        ConfigurationKey(name: "access_log") { draft, input throws(ConfigurationValueError) in
            draft.accessLog = try input.path()
        },
        ConfigurationKey(name: "access_log_max_bytes") { draft, input throws(ConfigurationValueError) in
            draft.configuration.accessLogMaxBytes = try input.int64(0...1 << 40)
        },
        ConfigurationKey(name: "access_log_keep") { draft, input throws(ConfigurationValueError) in
            draft.configuration.accessLogKeep = try input.int(0...1_000)
        },
        ConfigurationKey(name: "limits.max_connections") { draft, input throws(ConfigurationValueError) in
            draft.configuration.limits.maxConnections = try input.int(1...1_000_000)
        },
        ConfigurationKey(name: "limits.max_header_bytes") { draft, input throws(ConfigurationValueError) in
            draft.configuration.limits.maxHeaderBytes = try input.int(1_024...1_048_576)
        },
        ConfigurationKey(name: "limits.header_timeout_seconds") { draft, input throws(ConfigurationValueError) in
            draft.configuration.limits.headerTimeoutSeconds = try input.int(1...3_600)
        },
        ConfigurationKey(name: "limits.idle_timeout_seconds") { draft, input throws(ConfigurationValueError) in
            draft.configuration.limits.idleTimeoutSeconds = try input.int(1...86_400)
        },
        ConfigurationKey(name: "limits.body_timeout_seconds") { draft, input throws(ConfigurationValueError) in
            draft.configuration.limits.bodyTimeoutSeconds = try input.int(1...3_600)
        },
        ConfigurationKey(name: "limits.max_upload_bytes") { draft, input throws(ConfigurationValueError) in
            draft.configuration.limits.maxUploadBytes = try input.int64(1...1 << 50)
        },
        ConfigurationKey(name: "limits.max_event_body_bytes") { draft, input throws(ConfigurationValueError) in
            draft.configuration.limits.maxEventBodyBytes = try input.int(1...1 << 30)
        },
        ConfigurationKey(name: "limits.max_event_inflated_bytes") { draft, input throws(ConfigurationValueError) in
            draft.configuration.limits.maxEventInflatedBytes = try input.int(1...1 << 31)
        },
        ConfigurationKey(name: "limits.max_events_per_batch") { draft, input throws(ConfigurationValueError) in
            draft.configuration.limits.maxEventsPerBatch = try input.int(1...100_000)
        },
        ConfigurationKey(name: "signing.keys") { draft, input throws(ConfigurationValueError) in
            draft.configuration.signing[default: .init()].keys = try input.pathList(1...2)
        },
        ConfigurationKey(name: "signing.ttl_seconds") { draft, input throws(ConfigurationValueError) in
            draft.configuration.signing[default: .init()].ttlSeconds = try input.int(60...31_536_000)
        },
        ConfigurationKey(name: "signing.resign_seconds") { draft, input throws(ConfigurationValueError) in
            draft.configuration.signing[default: .init()].resignSeconds = try input.int(1...86_400)
        },
    ] + console + ingest

    /// Keys whose file value is an object of sub-keys (`limits.max_connections`).
    static let sections: Set<String> = ["limits", "signing", "console", "events_ship"]

    static let byName: [String: ConfigurationKey] =
        Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0) })

    static let byEnvironmentName: [String: ConfigurationKey] =
        Dictionary(uniqueKeysWithValues: all.map { ($0.environmentName, $0) })
}

// MARK: - Value checks

extension ConfigurationKey {
    /// http(s)://host[:port][/prefix]; no query or fragment; a trailing slash is dropped.
    static func publicBaseURL(_ text: String) throws(ConfigurationValueError) -> String {
        let schemes = ["http://", "https://"]
        guard let scheme = schemes.first(where: { text.lowercased().hasPrefix($0) }) else {
            throw ConfigurationValueError("\"\(text)\" is not an http:// or https:// URL")
        }
        let rest = text.dropFirst(scheme.count)
        let authority = rest.prefix { $0 != "/" }
        guard !authority.isEmpty, !authority.hasPrefix(":"), !authority.contains("@"),
              !text.contains(where: { $0 == "?" || $0 == "#" || !$0.isASCII || $0.isWhitespace || $0.asciiValue! < 0x20 })
        else {
            throw ConfigurationValueError("\"\(text)\" needs a host and no query, fragment, spaces or user info")
        }
        var url = text
        while url.hasSuffix("/") { url.removeLast() }
        return url
    }

    /// Visible ASCII only, so it can travel in `Authorization: Bearer …`.
    static func adminToken(_ text: String) throws(ConfigurationValueError) -> String {
        guard (1...512).contains(text.utf8.count), text.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw ConfigurationValueError("must be 1-512 visible ASCII characters (no spaces)")
        }
        return text
    }

    /// Used in file names (events segments, access log, lock), so a safe file-name token.
    static func instanceID(_ text: String) throws(ConfigurationValueError) -> String {
        let utf8 = Array(text.utf8)
        let allowed: (UInt8) -> Bool = { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".")
        }
        guard (1...64).contains(utf8.count), utf8.allSatisfy(allowed), utf8[0] != UInt8(ascii: ".") else {
            throw ConfigurationValueError(
                "\"\(text)\" must be 1-64 characters of [A-Za-z0-9._-], not starting with a dot")
        }
        return text
    }
}

extension ConfigurationInput {
    var isNull: Bool {
        if case .json(.null) = self { return true }
        return false
    }

    func string() throws(ConfigurationValueError) -> String {
        switch self {
        case .text(let text): return text
        case .json(.string(let text)): return text
        case .json(let other): throw ConfigurationValueError("expected a string, got \(other.typeName)")
        }
    }

    /// A non-empty path without NUL bytes.
    func path() throws(ConfigurationValueError) -> String {
        let text = try string()
        guard !text.isEmpty, !text.utf8.contains(0) else {
            throw ConfigurationValueError("expected a non-empty path")
        }
        return text
    }

    /// A JSON array of paths, or comma-separated paths from an env var.
    func pathList(_ count: ClosedRange<Int>) throws(ConfigurationValueError) -> [String] {
        var paths: [String] = []
        switch self {
        case .text(let text):
            paths = text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        case .json(.array(let items)):
            for item in items { paths.append(try ConfigurationInput.json(item).string()) }
        case .json(let other):
            throw ConfigurationValueError("expected an array of paths, got \(other.typeName)")
        }
        guard count.contains(paths.count) else {
            throw ConfigurationValueError("expected \(count.lowerBound)-\(count.upperBound) key files, got \(paths.count)")
        }
        for p in paths where p.isEmpty || p.utf8.contains(0) { throw ConfigurationValueError("expected non-empty paths") }
        return paths
    }

    func int64(_ range: ClosedRange<Int64>) throws(ConfigurationValueError) -> Int64 {
        let value: Int64
        switch self {
        case .json(.integer(let number)):
            value = number
        case .json(let other):
            throw ConfigurationValueError("expected an integer, got \(other.typeName)")
        case .text(let text):
            guard let number = Int64(text) else {
                throw ConfigurationValueError("expected an integer, got \"\(text)\"")
            }
            value = number
        }
        guard range.contains(value) else {
            throw ConfigurationValueError("\(value) is out of range \(range.lowerBound)...\(range.upperBound)")
        }
        return value
    }

    func int(_ range: ClosedRange<Int>) throws(ConfigurationValueError) -> Int {
        Int(try int64(Int64(range.lowerBound)...Int64(range.upperBound)))
    }
}

private extension Optional {
    /// `signing[default: .init()].x = …`: the first sub-key creates the section.
    subscript(default value: @autoclosure () -> Wrapped) -> Wrapped {
        get { self ?? value() }
        set { self = newValue }
    }
}

private extension String {
    func replacingDotsWithUnderscores() -> String {
        String(map { $0 == "." ? "_" : $0 })
    }
}

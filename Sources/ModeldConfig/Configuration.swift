// The resolved server configuration (SPEC §8): defaults < config file < MODELD_* env < flags.
// Built by `Configuration.load(arguments:environment:readFile:hostName:)`; plain values only.

/// Everything `modeld` needs to start, after all layers were applied and validated.
public struct Configuration: Sendable, Equatable {
    public var listen: ListenAddress
    /// `public_base_url` without a trailing slash; nil means "derive after binding" (with a warning).
    public var publicBaseURL: String?
    public var modelsDir: String
    public var dataDir: String
    /// nil: the admin API is off (answers 404).
    public var adminToken: AdminTokenSetting?
    public var instanceID: String
    public var latestMaxAgeSeconds: Int
    /// 0 = one worker loop per core.
    public var workers: Int
    public var retiredGraceDays: Int
    public var dedupWindowHours: Int
    /// Age at which an event segment is rotated (SPEC §9.1), so `events ship` lags at most this.
    public var eventsSegmentMaxSeconds = 3_600
    /// SPEC §16: how many earlier releases of a channel a new file gets a patch from.
    public var patchBases = 3
    /// Whether modeld derives packed files and patches after a publish (SPEC §16); off, it
    /// serves only what another writer derived (docs/decisions/tensor-pack.md).
    public var packAtPublish = true
    public var drainSeconds: Int
    /// How often the guard evaluator looks at running guards (SPEC §11.4).
    public var guardIntervalSeconds: Int
    public var accessLog: AccessLogSetting
    /// Size at which the access log rotates; 0 = never.
    public var accessLogMaxBytes: Int64
    /// Rotated access-log files kept (`.1` … `.N`).
    public var accessLogKeep: Int
    public var limits: Limits
    /// SPEC §12; nil = unsigned answers.
    public var signing: Signing?
    /// SPEC §15 (Configuration+Console.swift).
    public var console = Console()
    /// SPEC §18: ingest replicas and the guard's bucket (Configuration+Ingest.swift).
    public var ingest = Ingest()
    /// Where the values came from, in layering order, e.g. ["config/modeld.json", "env MODELD_INSTANCE_ID", "flag --port"].
    public var sources: [String]

    public struct Limits: Sendable, Equatable {
        public var maxConnections = 10_000
        public var maxHeaderBytes = 65_536
        public var headerTimeoutSeconds = 10
        public var idleTimeoutSeconds = 60
        public var bodyTimeoutSeconds = 30
        public var maxUploadBytes: Int64 = 21_474_836_480
        public var maxEventBodyBytes = 1_048_576
        public var maxEventInflatedBytes = 8_388_608
        public var maxEventsPerBatch = 1_000

        public init() {}
    }

    /// `signing`: 1–2 private key files (relative to the working directory), how long a signature
    /// is valid and how often the server re-signs.
    public struct Signing: Sendable, Equatable {
        public var keys: [String] = []
        public var ttlSeconds = 604_800
        public var resignSeconds = 3_600

        public init() {}
    }

    /// `admin_token` and `admin_token_file` are one setting in two forms: the higher layer wins.
    public enum AdminTokenSetting: Sendable, Equatable {
        case token(String)
        /// Read at start-up; created with a random token when missing (`TokenFile.loadOrCreate`).
        case file(String)
    }

    public enum AccessLogSetting: Sendable, Equatable {
        case file(String)
        case stdout
        case off
    }

    /// Built-in defaults; `instanceID` is the host name, the access log lives in `data_dir`.
    public static func defaults(hostName: String) -> Configuration {
        Configuration(
            listen: ListenAddress(host: "0.0.0.0", port: 8080),
            publicBaseURL: nil, modelsDir: "models", dataDir: "data", adminToken: nil,
            instanceID: hostName, latestMaxAgeSeconds: 60, workers: 0, retiredGraceDays: 7,
            dedupWindowHours: 48, drainSeconds: 10, guardIntervalSeconds: 60,
            accessLog: .file("data/access-\(hostName).log"),
            accessLogMaxBytes: 268_435_456, accessLogKeep: 10,
            limits: Limits(), signing: nil, sources: ["defaults"])
    }

    /// The config file read when `--config` is not given (absent: defaults only).
    public static let defaultConfigPath = "config/modeld.json"

    /// One phrase for the start-up log line.
    public var sourceDescription: String { sources.joined(separator: " + ") }
}

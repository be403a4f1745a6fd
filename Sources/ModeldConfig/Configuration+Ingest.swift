// SPEC §18 (v6), kept in its own file: `ingest_only`, `events_ship` (a replica ships its own
// sealed segments) and `guard_events_from` with its `guard_events_*` connection keys (the
// evaluator reads shipped segments from the bucket). docs/decisions/ingest-replicas.md.

extension Configuration {
    /// Where a bucket is and how to reach it: the settings of `modelctl events ship`'s
    /// `--to/--endpoint/--region/--addressing/--credentials-file/--profile`, as plain text
    /// (ModeldCore turns them into a client and reports a bad value naming the key).
    public struct Bucket: Sendable, Equatable {
        /// `s3://BUCKET[/PREFIX]`.
        public var url = ""
        public var endpoint: String?
        public var region = "us-east-1"
        /// `path` or `virtual`; nil: path for an IP address or localhost, else virtual.
        public var addressing: String?
        /// An AWS CLI credentials file (mode 0600); nil: `AWS_ACCESS_KEY_ID`/`AWS_SECRET_ACCESS_KEY`.
        public var credentialsFile: String?
        public var profile = "default"

        public init() {}
    }

    /// The §18 settings; all off by default (a full modeld reading only its own data/events).
    public struct Ingest: Sendable, Equatable {
        /// `ingest_only`: answer only POST /events, /healthz, /metrics; no models_dir.
        public var only = false
        /// `events_ship`: ship sealed segments in-process; nil = not shipped.
        public var ship: Bucket?
        /// `guard_events_from` (+ `guard_events_*`): the evaluator also reads what is shipped there.
        public var guardEventsFrom: Bucket?

        public init() {}
    }
}

extension ConfigurationKey {
    /// `events_ship` is a section (`events_ship.to`, env `MODELD_EVENTS_SHIP_TO`); the guard's
    /// bucket is the top-level string SPEC names, its connection keys beside it with a prefix.
    static let ingest: [ConfigurationKey] = [
        ConfigurationKey(name: "ingest_only") { draft, input throws(ConfigurationValueError) in
            draft.configuration.ingest.only = try input.bool()
        },
        ConfigurationKey(name: "guard_events_from") { draft, input throws(ConfigurationValueError) in
            draft.configuration.ingest.guardEventsFrom = try input.isNull ? nil : bucketURL(input.string(), draft.configuration.ingest.guardEventsFrom)
        },
    ] + bucketKeys("events_ship.", urlKey: "to", \.ship) + bucketKeys("guard_events_", urlKey: nil, \.guardEventsFrom)

    /// The connection keys of one bucket setting; `urlKey` names its URL key when the group has it.
    private static func bucketKeys(_ prefix: String, urlKey: String?,
                                   _ setting: WritableKeyPath<Configuration.Ingest, Configuration.Bucket?> & Sendable) -> [ConfigurationKey] {
        typealias Apply = @Sendable (inout Configuration.Bucket, ConfigurationInput) throws(ConfigurationValueError) -> Void
        var fields: [(String, Apply)] = [
            ("endpoint", { b, input throws(ConfigurationValueError) in b.endpoint = try input.string() }),
            ("region", { b, input throws(ConfigurationValueError) in b.region = try input.string() }),
            ("addressing", { b, input throws(ConfigurationValueError) in
                let style = try input.string()
                guard style == "path" || style == "virtual" else { throw ConfigurationValueError("\"\(style)\" is not path or virtual") }
                b.addressing = style
            }),
            ("credentials_file", { b, input throws(ConfigurationValueError) in b.credentialsFile = try input.path() }),
            ("profile", { b, input throws(ConfigurationValueError) in b.profile = try input.string() }),
        ]
        if let urlKey {
            fields.append((urlKey, { b, input throws(ConfigurationValueError) in b = try bucketURL(input.string(), b) }))
        }
        return fields.map { field, apply in
            ConfigurationKey(name: prefix + field) { draft, input throws(ConfigurationValueError) in
                var bucket = draft.configuration.ingest[keyPath: setting] ?? .init()
                try apply(&bucket, input)
                draft.configuration.ingest[keyPath: setting] = bucket
            }
        }
    }

    /// `s3://BUCKET[/PREFIX]` into `bucket` (the other keys it already holds kept).
    private static func bucketURL(_ text: String, _ bucket: Configuration.Bucket?) throws(ConfigurationValueError) -> Configuration.Bucket {
        guard text.hasPrefix("s3://"), text.dropFirst(5).first.map({ $0 != "/" }) == true else {
            throw ConfigurationValueError("\"\(text)\" is not s3://BUCKET[/PREFIX]")
        }
        var b = bucket ?? .init()
        b.url = text
        return b
    }
}

extension Configuration.Ingest {
    /// A connection key without its URL (`events_ship.endpoint` without `events_ship.to`) or a
    /// URL without an endpoint is an error naming the missing key, found once every layer applied.
    func validate() throws(ConfigurationError) {
        for (bucket, urlKey, endpointKey, group) in [(ship, "events_ship.to", "events_ship.endpoint", "events_ship.*"),
                                                     (guardEventsFrom, "guard_events_from", "guard_events_endpoint", "guard_events_*")] {
            guard let bucket else { continue }
            if bucket.url.isEmpty { throw ConfigurationError(subject: "key \"\(urlKey)\"", reason: "required with the other \(group) keys") }
            if bucket.endpoint == nil { throw ConfigurationError(subject: "key \"\(endpointKey)\"", reason: "required with \(urlKey)") }
        }
    }
}

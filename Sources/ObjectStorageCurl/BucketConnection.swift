import ObjectStorage

/// An `s3://BUCKET[/PREFIX]` location and how to reach it (SPEC §9.1's options: endpoint,
/// region, addressing, credentials from a 0600 INI file or the environment), turned into a
/// client. One implementation for modelctl's flags and modeld's `events_ship` /
/// `guard_events_from` keys (SPEC §18).
public struct BucketConnection: Sendable {
    public var url: String
    public var endpoint: String?
    public var region: String
    public var addressing: S3Endpoint.Addressing?
    public var credentialsFile: String?
    public var profile: String

    public init(url: String, endpoint: String?, region: String = "us-east-1", addressing: S3Endpoint.Addressing? = nil,
                credentialsFile: String? = nil, profile: String = "default") {
        self.url = url
        self.endpoint = endpoint
        self.region = region
        self.addressing = addressing
        self.credentialsFile = credentialsFile
        self.profile = profile
    }

    /// Bucket and key prefix (without slashes at either end) of an `s3://BUCKET[/PREFIX]` URL.
    public static func location(_ url: String) throws(S3Error) -> (bucket: String, prefix: String) {
        guard url.hasPrefix("s3://") else { throw S3Error.usage("\(url): expected s3://BUCKET[/PREFIX]") }
        let rest = url.dropFirst("s3://".count)
        let bucket = String(rest.prefix { $0 != "/" })
        var prefix = rest.dropFirst(bucket.count)
        while prefix.hasPrefix("/") { prefix = prefix.dropFirst() }
        while prefix.hasSuffix("/") { prefix = prefix.dropLast() }
        guard !bucket.isEmpty else { throw S3Error.usage("\(url): no bucket") }
        return (bucket, String(prefix))
    }

    /// The client and the key prefix; `environment` supplies `AWS_*` credentials when no file is named.
    public func client(environment: [String: String]) throws(S3Error) -> (client: S3Client, prefix: String) {
        let (bucket, prefix) = try Self.location(url)
        guard let endpoint else { throw S3Error.usage("\(url) needs an endpoint") }
        let s3Endpoint = try S3Endpoint(url: endpoint, bucket: bucket, region: region, addressing: addressing)
        let credentials: Credentials
        if let credentialsFile {
            credentials = try Credentials.load(file: credentialsFile, profile: profile)
        } else if let found = Credentials.fromEnvironment(environment) {
            credentials = found
        } else {
            throw S3Error.usage("no credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or name a credentials file")
        }
        return (S3Client(endpoint: s3Endpoint, credentials: credentials), prefix)
    }
}

import ArgumentParser
import Foundation
import ObjectStorage
import ObjectStorageCurl

/// The bucket options shared by `mirror` and `events ship` (SPEC §9.1): the destination and
/// how to reach it.
struct ObjectStorageOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Destination: s3://BUCKET[/PREFIX].", valueName: "s3-url")) var to: String
    @OptionGroup var connection: ObjectStorageConnection

    /// The client for `--to`; a bad option or credentials source exits 2, as a usage error.
    func client() throws(CLIFailure) -> (client: S3Client, prefix: String) { try connection.client(for: to, flag: "--to") }
}

/// How to reach a bucket — endpoint, region, addressing, credentials — also used by
/// `events export --from`. Credentials come from the environment or a 0600 INI file, never argv.
struct ObjectStorageConnection: ParsableArguments {
    @Option(help: ArgumentHelp("S3 endpoint: http(s)://host[:port] (R2, AWS, GCS, MinIO, Ceph RGW).", valueName: "url")) var endpoint: String?
    @Option(help: "Signing region (R2: auto).") var region = "us-east-1"
    @Option(help: ArgumentHelp("path or virtual (default: path for an IP address or localhost, else virtual).", valueName: "style"))
    var addressing: S3Endpoint.Addressing?
    @Option(help: ArgumentHelp("AWS CLI credentials file (mode 0600); default: AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY.", valueName: "file"))
    var credentialsFile: String?
    @Option(help: "Profile in --credentials-file.") var profile = "default"

    /// Bucket and key prefix (without slashes at either end) of an `s3://BUCKET[/PREFIX]` URL.
    static func destination(_ url: String, flag: String) throws(CLIFailure) -> (bucket: String, prefix: String) {
        guard url.hasPrefix("s3://") else { throw CLIFailure("\(flag) \(url): expected s3://BUCKET[/PREFIX]", exitCode: 2) }
        let rest = url.dropFirst("s3://".count)
        let bucket = String(rest.prefix { $0 != "/" })
        var prefix = rest.dropFirst(bucket.count)
        while prefix.hasPrefix("/") { prefix = prefix.dropFirst() }
        while prefix.hasSuffix("/") { prefix = prefix.dropLast() }
        guard !bucket.isEmpty else { throw CLIFailure("\(flag) \(url): no bucket", exitCode: 2) }
        return (bucket, String(prefix))
    }

    /// The client for the bucket of `url` (given as `flag`) and its key prefix.
    func client(for url: String, flag: String) throws(CLIFailure) -> (client: S3Client, prefix: String) {
        let (bucket, prefix) = try Self.destination(url, flag: flag)
        guard let endpoint else { throw CLIFailure("\(flag) needs --endpoint URL", exitCode: 2) }
        do {
            let s3Endpoint = try S3Endpoint(url: endpoint, bucket: bucket, region: region, addressing: addressing)
            return (S3Client(endpoint: s3Endpoint, credentials: try credentials()), prefix)
        } catch {
            throw CLIFailure(error.description, exitCode: 2)
        }
    }

    private func credentials() throws(S3Error) -> Credentials {
        if let credentialsFile { return try Credentials.load(file: credentialsFile, profile: profile) }
        guard let found = Credentials.fromEnvironment(ProcessInfo.processInfo.environment) else {
            throw S3Error.usage("no credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or pass --credentials-file")
        }
        return found
    }
}

extension S3Endpoint.Addressing: ExpressibleByArgument {}

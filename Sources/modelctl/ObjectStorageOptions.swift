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

    /// The client for the bucket of `url` (given as `flag`) and its key prefix (BucketConnection).
    func client(for url: String, flag: String) throws(CLIFailure) -> (client: S3Client, prefix: String) {
        // The flag's own message first, as for any other option.
        if endpoint == nil, (try? BucketConnection.location(url)) != nil { throw CLIFailure("\(flag) needs --endpoint URL", exitCode: 2) }
        let connection = BucketConnection(url: url, endpoint: endpoint, region: region, addressing: addressing,
                                          credentialsFile: credentialsFile, profile: profile)
        do { return try connection.client(environment: ProcessInfo.processInfo.environment) } catch {
            throw CLIFailure(error.description.hasPrefix(url) ? "\(flag) \(error.description)" : error.description, exitCode: 2)
        }
    }
}

extension S3Endpoint.Addressing: ExpressibleByArgument {}

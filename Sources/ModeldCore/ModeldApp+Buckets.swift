import EventShipping
import GuardRuntime
import Logging
import ModelCatalog
import ModeldConfig
import ObjectStorage
import ObjectStorageCurl
#if canImport(Glibc)
import Glibc
#endif

/// SPEC §18's buckets: `events_ship` (this instance ships its sealed segments) and
/// `guard_events_from` (the evaluator reads shipped ones). A bad endpoint, addressing or
/// credentials source stops start-up with exit 2 naming the key, before anything listens.
extension ModeldApp {
    static func shippingService(_ config: Configuration, environment: [String: String], metrics: Metrics) throws -> EventShippingService? {
        guard let ship = config.ingest.ship else { return nil }
        let (client, prefix) = try bucketClient(ship, key: "events_ship", environment: environment)
        // A pass every few seconds: a sealed segment leaves soon after its rotation (the
        // freshness knob is events_segment_max_seconds), and a pass with nothing new only lists
        // the events directory.
        let interval = max(1, min(5, config.eventsSegmentMaxSeconds / 4))
        return EventShippingService(shipper: EventShipper(bucket: client, prefix: prefix, dataDir: config.dataDir),
                                    intervalSeconds: interval, metrics: metrics)
    }

    static func guardEventsFollower(_ config: Configuration, environment: [String: String]) throws -> ShippedSegmentFollower? {
        guard let from = config.ingest.guardEventsFrom else { return nil }
        let (client, prefix) = try bucketClient(from, key: "guard_events_from", environment: environment)
        do throws(ShipFailure) {
            return try ShippedSegmentFollower(bucket: client, prefix: prefix, stateDirectory: GuardRecords(dataDir: config.dataDir).stateDirectory)
        } catch {
            throw StartupFailure(message: "guard_events_from: \(error.message)")
        }
    }

    private static func bucketClient(_ bucket: Configuration.Bucket, key: String, environment: [String: String]) throws -> (S3Client, String) {
        let connection = BucketConnection(url: bucket.url, endpoint: bucket.endpoint, region: bucket.region,
                                          addressing: bucket.addressing.flatMap(S3Endpoint.Addressing.init(rawValue:)),
                                          credentialsFile: bucket.credentialsFile, profile: bucket.profile)
        do throws(S3Error) {
            let made = try connection.client(environment: environment)
            return (made.client, made.prefix)
        } catch {
            throw StartupFailure(message: "\(key): \(error.description)", exitCode: ConfigurationError.exitCode)
        }
    }

    /// The last shipping pass after the store closed, within what is left of the drain.
    static func finishShipping(_ shipping: EventShippingService?, deadline: Int64, log: Logger) {
        guard let shipping else { return }
        let left = Double(deadline - Timestamp.now().millisecondsSinceEpoch) / 1000
        if !shipping.finish(within: left) {
            log.warning("shipping the last segments did not end within drain_seconds; a restart with this data directory ships them")
        }
    }
}

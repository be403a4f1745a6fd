import EventStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import ObjectStorage
import ObjectStorageCurl

/// Shipped segments read back from a bucket (`events export --from`): every
/// `PREFIX/events/dt=DAY/NAME.jsonl.gz` is fetched and inflated into a scratch events
/// directory laid out as the data dir's (`DAY/NAME.jsonl`), so the export that reads it is the
/// local one — same order, same committed-line reader, same dedup — and equal byte for byte.
public enum ShippedSegments {
    /// Downloads into a new scratch directory and returns it; the caller removes it.
    public static func download(bucket: any ObjectBucket, prefix: String, since: String?, until: String?) throws(ShipFailure) -> String {
        let root = FileManager.default.temporaryDirectory.path + "/modelctl-export-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let events = SegmentName.bucketKeyPrefix(prefix)
        do {
            for object in try bucket.list(prefix: events, pageSize: nil) {
                guard let segment = SegmentName(bucketKey: object.key, prefix: prefix) else { continue }
                // A day outside --since/--until holds no event in range (segments rotate at midnight).
                if let since, segment.day < since { continue }
                if let until, segment.day > until { continue }
                try FileManager.default.createDirectory(atPath: "\(root)/\(segment.day)", withIntermediateDirectories: true)
                try GzipFile.decompress(bucket.get(object.key), to: "\(root)/\(segment.relativePath)",
                                        limit: EventStoreConfig.largestSegmentBytes)
            }
        } catch {
            // Best effort: the download's own error is the one to report, and a scratch
            // directory left in the temporary directory holds only copies.
            try? FileManager.default.removeItem(atPath: root)
            throw error as? ShipFailure ?? ShipFailure("reading \(events)…: \(error)")
        }
        return root
    }
}

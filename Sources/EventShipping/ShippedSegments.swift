import EventStore
import Foundation
import ObjectStorageCurl

/// Shipped segments read back from a bucket (`events export --from`): every
/// `PREFIX/events/dt=DAY/NAME.jsonl.gz` is fetched and inflated into a scratch events
/// directory laid out as the data dir's (`DAY/NAME.jsonl`), so the export that reads it is the
/// local one — same order, same committed-line reader, same dedup — and equal byte for byte.
enum ShippedSegments {
    /// Downloads into a new scratch directory and returns it; the caller removes it.
    static func download(client: S3Client, prefix: String, since: String?, until: String?) throws(CLIFailure) -> String {
        let root = NSTemporaryDirectory() + "/modelctl-export-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let events = (prefix.isEmpty ? "" : prefix + "/") + "events/dt="
        do {
            for object in try client.list(prefix: events) {
                let rest = object.key.dropFirst(events.count)
                guard let slash = rest.firstIndex(of: "/") else { continue }
                let day = String(rest[..<slash])
                let name = String(rest[rest.index(after: slash)...])
                guard EventExport.isDay(day), name.hasSuffix(".jsonl.gz"), !name.contains("/") else { continue }
                // A day outside --since/--until holds no event in range (segments rotate at midnight).
                if let since, day < since { continue }
                if let until, day > until { continue }
                try FileManager.default.createDirectory(atPath: "\(root)/\(day)", withIntermediateDirectories: true)
                try GzipFile.decompress(client.get(object.key), to: "\(root)/\(day)/\(name.dropLast(3))")
            }
        } catch let failure as CLIFailure {
            try? FileManager.default.removeItem(atPath: root)
            throw failure
        } catch {
            try? FileManager.default.removeItem(atPath: root)
            throw CLIFailure("reading \(events)…: \(error)")
        }
        return root
    }
}

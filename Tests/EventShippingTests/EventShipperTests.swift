import ContentDigest
import DirectoryBucket
import EventStore
import Foundation
import ObjectStorage
import Testing
@testable import EventShipping

/// EventShipper and ShippedSegments in process: segments written by a real EventStore (small
/// segments, so each batch rotates), shipped to a directory-backed bucket and read back.
@Suite struct EventShipperTests {
    let root: String
    let dataDir: String
    let bucket: DirectoryBucket

    init() throws {
        root = NSTemporaryDirectory() + "/event-shipper-\(UUID().uuidString)"
        dataDir = root + "/data"
        try FileManager.default.createDirectory(atPath: dataDir + "/events", withIntermediateDirectories: true)
        bucket = try DirectoryBucket(root: root + "/bucket")
    }

    private func cleanUp() { try? FileManager.default.removeItem(atPath: root) }

    /// An open store that has written `batches` batches, one segment each.
    private func store(batches: Int, instance: String = "node-a") throws -> EventStore {
        var config = EventStoreConfig(directory: dataDir + "/events", instance: instance)
        config.segmentMaxBytes = 64   // every commit passes it: the next batch opens a new segment
        let store = try EventStore(config: config)
        for i in 0..<batches {
            let body = #"{"batch_id":"\#(instance)-\#(i)","client_id":"c1","events":[{"name":"prompt","ts":"2026-11-21T10:00:00Z","model_id":"m1","outcome":"purchased"}]}"#
            let batch = try BatchParser.parse(Array(body.utf8), queryClientID: nil, maxEventsPerBatch: 10)
            guard case .accepted = store.submitAndWait(batch, sdk: nil) else { throw ShipFailure("batch \(i) not accepted") }
        }
        return store
    }

    private func segments() -> [SegmentName] {
        SegmentLayout.days(in: dataDir + "/events").flatMap { day in
            ((try? FileManager.default.contentsOfDirectory(atPath: "\(dataDir)/events/\(day)")) ?? []).compactMap { SegmentName(day: day, fileName: $0) }
        }.sorted { $0.number < $1.number }
    }

    private func ledger() -> [String] {
        (try? String(contentsOfFile: dataDir + "/shipped.jsonl", encoding: .utf8))?.split(separator: "\n").map(String.init) ?? []
    }

    @Test func ship_eachSealedSegmentOnce_theLedgerSkipsWhatShipped_SPEC9_1() throws {
        defer { cleanUp() }
        try store(batches: 3).close()
        let written = segments()
        #expect(written.count >= 3)
        let shipper = EventShipper(bucket: bucket, prefix: "logs", dataDir: dataDir)
        let first = try shipper.run()
        #expect(first.shipped == written.count && first.alreadyShipped == 0 && first.bytes > 0)
        #expect(bucket.log == written.map { "put logs/events/dt=\($0.day)/\($0.fileName).gz" })
        #expect(ledger().count == written.count)
        #expect(ledger().allSatisfy { $0.contains(#""key":"logs/events/dt="#) })
        // shipped_at in the product's one time form: RFC 3339 UTC with milliseconds.
        #expect(ledger().allSatisfy { line in
            line.firstRange(of: #/"shipped_at":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"/#) != nil
        }, "\(ledger())")

        let second = try shipper.run()
        #expect(second == EventShipper.Summary(shipped: 0, alreadyShipped: written.count, bytes: 0))
        #expect(bucket.log.count == written.count, "nothing is sent twice")
    }

    /// A ledger line torn by a crash after the upload: that segment ships again, which the bucket
    /// answers 412 and HEAD confirms as the same bytes.
    @Test func ship_tornLedgerLine_reshipsAsAConfirmedNoOp() throws {
        defer { cleanUp() }
        try store(batches: 2).close()
        let shipper = EventShipper(bucket: bucket, prefix: "", dataDir: dataDir)
        let shipped = try shipper.run().shipped
        var lines = ledger()
        let torn = String(lines.removeLast().prefix(20))
        try (lines.joined(separator: "\n") + "\n" + torn).write(toFile: dataDir + "/shipped.jsonl", atomically: false, encoding: .utf8)
        let again = try shipper.run()
        #expect(again.shipped == 1 && again.alreadyShipped == shipped - 1)
        #expect(bucket.log.count == shipped, "the second upload was refused (If-None-Match: *), not written")
    }

    /// The newest segment of an instance whose store is open is still being written: it stays.
    @Test func ship_leavesTheRunningInstancesNewestSegment() throws {
        defer { cleanUp() }
        let open = try store(batches: 2)
        defer { open.close() }
        let newest = try #require(segments().last)
        let summary = try EventShipper(bucket: bucket, prefix: "", dataDir: dataDir).run()
        #expect(summary.shipped == segments().count - 1)
        #expect(!bucket.log.contains("put \(newest.bucketKey(prefix: ""))"))
    }

    /// `export --from` reads back exactly the committed lines that shipped.
    @Test func download_inflatesEveryShippedSegmentToTheLocalLayout() throws {
        defer { cleanUp() }
        try store(batches: 3).close()
        _ = try EventShipper(bucket: bucket, prefix: "p", dataDir: dataDir).run()
        // A foreign object under the events prefix is not a segment and is left alone.
        let foreign = root + "/foreign"
        _ = FileManager.default.createFile(atPath: foreign, contents: Data("x".utf8))
        _ = try bucket.upload("p/events/dt=2026-11-21/notes.txt.gz", file: foreign, size: 1, sha256: SHA256Hex.of(Array("x".utf8)),
                              attributes: .init(contentType: "text/plain"), createOnly: true, plan: nil, progress: nil)
        let scratch = try ShippedSegments.download(bucket: bucket, prefix: "p", since: nil, until: nil)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        for segment in segments() {
            let local = try lines(dataDir + "/events/" + segment.relativePath)
            #expect(try lines(scratch + "/" + segment.relativePath) == local)
            #expect(!local.isEmpty)
        }
        let days = try FileManager.default.contentsOfDirectory(atPath: scratch)
        let files = try days.flatMap { try FileManager.default.contentsOfDirectory(atPath: scratch + "/" + $0) }
        #expect(files.count == segments().count)
    }

    /// A gzip bomb under the events prefix (a real one: 256 MiB of zeros, a quarter MiB packed)
    /// inflates no further than a segment can hold, fails the download, and leaves nothing.
    @Test func download_gzipBomb_stopsAtTheLargestSegment() throws {
        defer { cleanUp() }
        let zeros = root + "/zeros"
        let bomb = root + "/bomb.gz"
        let fd = open(zeros, O_WRONLY | O_CREAT, 0o644)
        #expect(ftruncate(fd, 256 << 20) == 0)   // sparse: reading it costs no disk
        close(fd)
        let size = try GzipFile.compress(zeros, length: 256 << 20, to: bomb)
        unlink(zeros)
        #expect(size < 2 << 20)
        _ = try bucket.upload("p/events/dt=2026-11-21/node-a-000001.jsonl.gz", file: bomb, size: size, sha256: SHA256Hex.of(path: bomb),
                              attributes: .init(contentType: "application/gzip"), createOnly: true, plan: nil, progress: nil)
        let before = Set((try? FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory())) ?? [])
        let failure = #expect(throws: ShipFailure.self) {
            try ShippedSegments.download(bucket: bucket, prefix: "p", since: nil, until: nil)
        }
        #expect(failure?.description.contains("inflates past \(EventStoreConfig.largestSegmentBytes) bytes") == true, "\(String(describing: failure))")
        let after = Set((try? FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory())) ?? [])
        #expect(after.subtracting(before).filter { $0.hasPrefix("modelctl-export-") }.isEmpty, "the scratch directory is removed")
    }

    private func lines(_ path: String) throws -> [String] {
        var lines: [String] = []
        _ = try SegmentReader(path: path).forEachCommittedLine { lines.append(String(decoding: $0, as: UTF8.self)) }
        return lines
    }
}

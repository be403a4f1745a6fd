import DirectoryBucket
import Foundation
import ModelCatalog
import ModelMirror
import Testing
@testable import BucketMirror

/// MirrorRunner in process: a real models directory published through CatalogStore, a real
/// journal under models/.mirror, and a directory-backed bucket that logs every write.
@Suite struct MirrorRunnerTests {
    let root: String
    let models: String
    let bucket: DirectoryBucket
    let store: CatalogStore

    init() throws {
        root = NSTemporaryDirectory() + "/mirror-runner-\(UUID().uuidString)"
        models = root + "/models"
        try FileManager.default.createDirectory(atPath: models, withIntermediateDirectories: true)
        bucket = try DirectoryBucket(root: root + "/bucket")
        store = CatalogStore(directory: models, publicBaseURL: "https://cdn.example.com")
    }

    private func cleanUp() { try? FileManager.default.removeItem(atPath: root) }

    /// Publishes `size` seeded bytes as a new release.
    private func publish(_ size: Int, seed: UInt8) throws -> Release {
        let source = root + "/source-\(seed).bin"
        let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) }
        _ = FileManager.default.createFile(atPath: source, contents: Data(bytes))
        return try store.publishFile(path: source, PublishRequest(sdkMin: "1.0", ext: "bin"), instance: "test").value
    }

    private func runner(threshold: Int64 = 100 << 20, maxAge: Int = 60, now: Int64 = 1_800_000_000) -> MirrorRunner {
        MirrorRunner(client: bucket, modelsDir: models, prefix: "cdn", pointerMaxAge: maxAge, multipartThreshold: threshold,
                     partSize: threshold < 100 << 20 ? 5 << 20 : nil, concurrency: 4, now: { now })
    }

    private func stored(_ key: String) throws -> [UInt8] { try bucket.get(key) }
    private func local(_ name: String) -> [UInt8] { [UInt8](FileManager.default.contents(atPath: models + "/" + name) ?? Data()) }

    @Test func run_uploadsFilesBeforeTheJSON_thenASecondPassSkipsEverything_SPEC9_1() throws {
        defer { cleanUp() }
        let first = try publish(1000, seed: 1), second = try publish(2000, seed: 2)
        let mirror = runner()
        let pass = try mirror.plan()
        #expect(pass.deletions.isEmpty)
        let summary = try mirror.run(pass)
        #expect(summary.uploaded == pass.uploads.steps.count && summary.skipped == 0 && summary.deleted == 0)
        #expect(summary.bytes == pass.uploads.bytesToUpload)
        let puts = bucket.log
        let pointer = "put cdn/models/latest_model_details.json"
        #expect(puts.last == pointer, "\(puts)")
        for release in [first, second] {
            let key = "cdn/models/\(release.file)"
            #expect(try stored(key) == local(release.file))
            #expect(try bucket.head(key)?.sha256 == release.sha256)
            #expect(puts.firstIndex(of: "put \(key)")! < puts.firstIndex(of: pointer)!)
        }
        #expect(try stored("cdn/models/latest_model_details.json") == local("latest_model_details.json"))

        let again = try mirror.run(mirror.plan())
        #expect(again.uploaded == 0 && again.skipped == summary.uploaded && again.deleted == 0 && again.bytes == 0)
        #expect(bucket.log == puts, "a pass over an up-to-date bucket writes nothing")
    }

    /// A run killed after the first part (the bucket fails the second) leaves its upload in the
    /// journal; the next run lists the parts already there and sends only the others.
    @Test func multipart_interruptedRun_resumesFromTheJournal_sendingOnlyMissingParts() throws {
        defer { cleanUp() }
        let release = try publish(6 << 20, seed: 3)   // two parts: 5 MiB and 1 MiB
        let key = "cdn/models/\(release.file)"
        bucket.failPartUpload(after: 1)
        #expect(throws: MirrorFailure.self) { try runner(threshold: 1 << 20).run(runner(threshold: 1 << 20).plan()) }
        let journal = MirrorJournal(modelsDir: models)
        let entry = try #require(journal.entry(for: key))
        #expect(entry.size == release.size && entry.sha256 == release.sha256 && entry.part_size == 5 << 20)
        #expect(try bucket.listParts(key, uploadID: entry.upload_id).map(\.partNumber) == [1])
        #expect(try bucket.head(key) == nil)

        let before = bucket.log.count
        let summary = try runner(threshold: 1 << 20).run(runner(threshold: 1 << 20).plan())
        #expect(Array(bucket.log[before...]).filter { $0.hasPrefix("part ") || $0.hasPrefix("create ") } == ["part \(key) 2"])
        #expect(bucket.log.contains("complete \(key)"))
        #expect(try stored(key) == local(release.file))
        #expect(summary.uploaded >= 1 && summary.bytes >= release.size)
        #expect(journal.entry(for: key) == nil, "a completed upload leaves the journal")
    }

    /// An upload journaled with another part size (an earlier run with another --part-size) is
    /// aborted and started over.
    @Test func multipart_journalForOtherPartSize_isAbortedAndStartedOver() throws {
        defer { cleanUp() }
        let release = try publish(6 << 20, seed: 4)
        let key = "cdn/models/\(release.file)"
        let journal = MirrorJournal(modelsDir: models)
        let stale = try bucket.createMultipartUpload(key, attributes: .init(contentType: "application/octet-stream"))
        try journal.record(.init(key: key, upload_id: stale, size: release.size, sha256: release.sha256, part_size: 6 << 20))
        _ = try runner(threshold: 1 << 20).run(runner(threshold: 1 << 20).plan())
        #expect(bucket.log.contains("abort \(key)"))
        #expect(try stored(key) == local(release.file))
        #expect(journal.entry(for: key) == nil)
    }

    /// A garbage-collected file leaves the bucket only after the JSON that stopped naming it has
    /// been in place for max-age, and only after everything else of that pass was written.
    @Test func deletions_waitForMaxAge_thenGoAfterEveryUpload_SPEC9_1() throws {
        defer { cleanUp() }
        let old = try publish(500, seed: 5)
        _ = try runner().run(runner().plan())
        _ = try publish(700, seed: 6)
        _ = try store.retire(id: old.id)
        try store.collectGarbage(graceDays: 0)
        let oldKey = "cdn/models/\(old.file)", oldChunks = oldKey + ".chunks"   // its chunk list goes with it (SPEC §14)

        let t0: Int64 = 1_800_000_000
        let waiting = try runner(maxAge: 60, now: t0).plan()
        #expect(waiting.deletions.isEmpty && waiting.secondsUntilNextDeletion == 61)
        #expect(try MirrorJournal(modelsDir: models).deletions().pending == [oldKey: t0, oldChunks: t0])
        _ = try runner(maxAge: 60, now: t0).run(waiting)
        #expect(try bucket.head(oldKey) != nil, "still named by a JSON a cache may hold")

        let due = try runner(maxAge: 60, now: t0 + 61).plan()
        #expect(due.deletions == [oldKey, oldChunks])
        let before = bucket.log.count
        // Modify the pointer so the due pass also uploads: the deletion must come after it.
        let pointer = models + "/latest_model_details.json"
        try (String(contentsOfFile: pointer, encoding: .utf8) + " ").write(toFile: pointer, atomically: true, encoding: .utf8)
        let pass = try runner(maxAge: 60, now: t0 + 61).plan()
        let summary = try runner(maxAge: 60, now: t0 + 61).run(pass)
        #expect(Array(bucket.log[before...]) == ["put cdn/models/latest_model_details.json", "delete \(oldKey)", "delete \(oldChunks)"])
        #expect(summary.deleted == 2 && summary.uploaded == 1)
        #expect(try bucket.head(oldKey) == nil)
        let schedule = try MirrorJournal(modelsDir: models).deletions()
        #expect(schedule.pending.isEmpty && schedule.done == [oldKey, oldChunks])
        #expect(try runner(maxAge: 60, now: t0 + 120).plan().deletions.isEmpty, "a deleted key is never looked at again")
    }

    @Test func journal_missingScheduleIsEmpty_garbageIsRefusedByName() throws {
        defer { cleanUp() }
        let journal = MirrorJournal(modelsDir: models)
        #expect(try journal.deletions() == DeletionSchedule())
        try FileManager.default.createDirectory(atPath: models + "/.mirror", withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: models + "/.mirror/deletions.json", contents: Data("{\"pending\":".utf8))
        let error = #expect(throws: MirrorFailure.self) { try journal.deletions() }
        #expect(error?.message.contains("deletions.json is not a deletion schedule") == true)
    }

    @Test func plan_modelFileOfTheWrongSize_isRefusedBeforeAnythingIsSent() throws {
        defer { cleanUp() }
        let release = try publish(100, seed: 7)
        _ = FileManager.default.createFile(atPath: models + "/" + release.file, contents: Data([1, 2, 3]))
        let error = #expect(throws: MirrorFailure.self) { try runner().plan() }
        #expect(error?.message.contains("is missing or not 100 bytes") == true)
        #expect(bucket.log.isEmpty)
    }
}

#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import ModelCatalog

/// `catalog_version` (SPEC §12): bumped under the publish lock on every change, never lowered.
@Suite struct CatalogVersionTests {
    static let base = "http://127.0.0.1:8080"

    func store(_ dir: TempDir) -> CatalogStore { CatalogStore(directory: dir.path + "/models", publicBaseURL: Self.base) }

    func upload(_ store: CatalogStore, _ text: String) throws -> FinishedUpload {
        let w = try UploadWriter(modelsDirectory: store.directory, instance: "test")
        try w.write(Array(text.utf8))
        return try w.finish()
    }

    /// The version as written in catalog.json (what other processes and signers read).
    func versionOnDisk(_ dir: TempDir) throws -> Int64 {
        let text = try #require(dir.read("models/catalog.json"))
        let prefix = #"{"format":1,"catalog_version":"#
        #expect(text.hasPrefix(prefix), "\(text.prefix(60))")
        return Int64(text.dropFirst(prefix.count).prefix { $0.isNumber })!
    }

    @Test func version_bumpsOnEveryKindOfChange_SPEC12() throws {
        let dir = TempDir(); defer { dir.remove() }
        let s = store(dir)
        #expect(try s.load().catalogVersion == 0, "an empty catalog has version 0")

        let a = try s.publish(try upload(s, "a"), PublishRequest(sdkMin: "1", ext: "onnx"), now: t0)
        #expect(a.catalogVersion == 1)
        #expect(try versionOnDisk(dir) == 1)
        let b = try s.publish(try upload(s, "b"), PublishRequest(sdkMin: "1", ext: "onnx"), now: t0)
        #expect(b.catalogVersion == 2)
        #expect(try s.patch(id: a.id, ReleasePatch(rolloutPercent: 50)).catalogVersion == 3)
        #expect(try s.patch(id: a.id, ReleasePatch(state: .paused)).catalogVersion == 4)
        #expect(try s.patch(id: a.id, ReleasePatch(state: .active)).catalogVersion == 5)
        #expect(try s.retire(id: a.id, now: t0).catalogVersion == 6)
        #expect(try s.collectGarbage(graceDays: 0, now: t0.adding(days: 1)).count == 1)
        #expect(try versionOnDisk(dir) == 7, "garbage collection is a change")
        #expect(try s.load().catalogVersion == 7)
        #expect(try s.load().release(id: b.id)?.seq == 2)
    }

    @Test func version_unchangedByNoOpsAndFailures_SPEC12() throws {
        let dir = TempDir(); defer { dir.remove() }
        let s = store(dir)
        let a = try s.publish(try upload(s, "a"), PublishRequest(sdkMin: "1", ext: "onnx"))
        let before = try #require(dir.read("models/catalog.json"))
        // Nothing to collect, a patch that changes nothing, a patch that fails: nothing written.
        #expect(try s.collectGarbage(graceDays: 0).isEmpty)
        #expect(try s.patch(id: a.id, ReleasePatch(rolloutPercent: 100)).catalogVersion == 1, "the version that holds it")
        #expect(throws: CatalogError.self) { try s.patch(id: Release.newID(), ReleasePatch(label: "x")) }
        #expect(throws: CatalogError.self) { try s.patch(id: a.id, ReleasePatch(rolloutPercent: 101)) }
        #expect(dir.read("models/catalog.json") == before)
        #expect(try s.load().catalogVersion == 1)
        #expect(try s.patch(id: a.id, ReleasePatch(label: "now")).catalogVersion == 2)
    }

    @Test func version_legacyCatalogLoadsUnchangedAndGetsOneOnFirstWrite_SPEC12() throws {
        let dir = TempDir(); defer { dir.remove() }
        mkdir(dir.path + "/models", 0o755)
        let id = "00000000-0000-4000-8000-000000000001"
        let legacy = #"{"format":1,"next_seq":2,"releases":[{"id":"\#(id)","seq":1,"ext":"onnx","sha256":"\#(sha)","size":1,"sdk_min":"1","channel":"stable","rollout_percent":100,"state":"active","label":"","published_at":"2026-11-21T10:00:00.000Z","content_type":"application/octet-stream"}]}"#
        dir.write("models/catalog.json", legacy + "\n")
        let s = store(dir)
        let loaded = try s.load()
        #expect(loaded.catalogVersion == 0 && loaded.releases.map(\.id) == [id] && loaded.nextSeq == 2)
        #expect(dir.read("models/catalog.json") == legacy + "\n", "loading writes nothing")
        #expect(try s.patch(id: id, ReleasePatch(label: "first write")).catalogVersion == 1)
        #expect(try versionOnDisk(dir) == 1)
    }

    @Test func version_roundTripsAndIsRefusedWhenNegative_SPEC12() throws {
        let catalog = try Catalog(releases: [rel(1)], nextSeq: 5, catalogVersion: 41)
        #expect(try Catalog(decoding: catalog.encoded()).catalogVersion == 41)
        #expect(throws: CatalogError.self) { try Catalog(releases: [], catalogVersion: -1) }
    }

    @Test func version_concurrentWritersNeverShareOrSkipAVersion_SPEC12() async throws {
        let dir = TempDir(); defer { dir.remove() }
        let path = dir.path + "/models"
        let perTask = 10
        let versions = try await withThrowingTaskGroup(of: [Int64].self) { group in
            for t in 0..<4 {
                group.addTask {
                    let s = CatalogStore(directory: path, publicBaseURL: Self.base)   // own lock fd, like a process
                    var seen: [Int64] = []
                    for i in 0..<perTask {
                        let w = try UploadWriter(modelsDirectory: path, instance: "t\(t)")
                        try w.write(Array("\(t)/\(i)".utf8))
                        seen.append(try s.publish(try w.finish(), PublishRequest(sdkMin: "1", ext: "bin")).catalogVersion)
                    }
                    return seen
                }
            }
            var all: [Int64] = []
            for try await v in group { all += v }
            return all
        }
        #expect(versions.sorted() == Array(1...Int64(4 * perTask)), "each change got its own next version")
        #expect(try store(dir).load().catalogVersion == Int64(4 * perTask))
    }

    @Test func adminJSON_endsWithCatalogVersionWhenGiven_SPEC12() throws {
        let r = rel(1)
        let plain = String(decoding: r.adminJSON(publicBaseURL: "http://h"), as: UTF8.self)
        #expect(!plain.contains("catalog_version"))
        let versioned = String(decoding: Versioned(r, catalogVersion: 9, publicBaseURL: "http://h").adminJSON(), as: UTF8.self)
        #expect(versioned == String(plain.dropLast()) + #","catalog_version":9}"#)
    }
}

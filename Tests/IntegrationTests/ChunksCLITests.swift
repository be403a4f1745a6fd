import ChildProcesses
import Foundation
import Testing

/// `modelctl chunks backfill` and `modelctl delta` (SPEC §14): the real binary on a models
/// directory, and a modeld started on it serving what backfill wrote.
@Suite(.serialized) final class ChunksCLITests {
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("chunks-cli-\(UUID().uuidString)")
    var models: URL { scratch.appendingPathComponent("models") }

    init() throws { try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true) }
    deinit { try? FileManager.default.removeItem(at: scratch) }

    func modelctl(_ arguments: [String]) throws -> ProcessResult {
        try ChildProcess.run(TestBinaries.modelctl, arguments, directory: scratch, timeout: .seconds(60))
    }

    func json(_ result: ProcessResult) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result.stdout) \(result.stderr)")
    }

    private func file(_ name: String, _ data: Data) throws -> URL {
        let url = scratch.appendingPathComponent(name)
        try data.write(to: url)
        return url
    }

    @Test func backfill_writesListsForPreV4Files_thatModeldThenServes_andASecondRunDoesNothing_SPEC14() throws {
        let data = DeltaUpdateTests.bytes(700_000, seed: 31)
        let published = try modelctl(["publish", try file("a.onnx", data).path, "--sdk-min", "1.0", "--models-dir", models.path, "--json"])
        #expect(published.status == 0, "\(published.stderr)")
        let release = try json(published)
        let id = try #require(release["id"] as? String)
        let chunks = try #require(release["chunks"] as? [String: Any])
        // Make it a pre-v4 catalog: no list recorded, none on disk.
        let catalogURL = models.appendingPathComponent("catalog.json")
        let recorded = #","chunks":{"sha256":"\#(chunks["sha256"] as? String ?? "")","size":\#(chunks["size"] as? Int ?? 0)}"#
        let catalog = try String(contentsOf: catalogURL, encoding: .utf8)
        try #require(catalog.contains(recorded))
        try catalog.replacingOccurrences(of: recorded, with: "").write(to: catalogURL, atomically: true, encoding: .utf8)
        let listURL = models.appendingPathComponent("\(id).onnx.chunks")
        let original = try Data(contentsOf: listURL)
        try FileManager.default.removeItem(at: listURL)

        let filled = try modelctl(["chunks", "backfill", "--models-dir", models.path, "--json"])
        #expect(filled.status == 0, "\(filled.stderr)")
        let files = try #require(try json(filled)["files"] as? [[String: Any]])
        #expect(files.map { $0["file"] as? String } == ["\(id).onnx"])
        #expect(try Data(contentsOf: listURL) == original)   // the same bytes publish wrote
        #expect(try String(contentsOf: catalogURL, encoding: .utf8).contains(recorded))
        let again = try modelctl(["chunks", "backfill", "--models-dir", models.path])
        #expect(again.status == 0 && again.stdout.contains("0 chunk list(s) written"), "\(again.stdout)")

        let server = try ModeldServer(models: models)
        let get = try Curl.run([server.url + "/models/\(id).onnx.chunks"])
        #expect(get.status == 200 && get.body == original && get.header("ETag") == "\"\(chunks["sha256"] as? String ?? "")\"")
        let latest = try Curl.run([server.url + "/latest?sdk=1.0"])
        let url = (latest.json?["chunks"] as? [String: Any])?["url"] as? String
        #expect(url?.hasSuffix("/models/\(id).onnx.chunks") == true, "\(latest.text)")
    }

    @Test func delta_ofTwoFiles_countsReusedAndMissingChunks_andRefusesBadArguments_SPEC14() throws {
        let old = DeltaUpdateTests.bytes(3 << 20, seed: 32)
        var new = old
        new.replaceSubrange(1_000_000..<1_010_000, with: DeltaUpdateTests.bytes(10_000, seed: 33))
        let a = try file("old.bin", old), b = try file("new.bin", new)
        let result = try modelctl(["delta", a.path, b.path, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let figures = try json(result)
        #expect(Set(figures.keys) == ["chunks_old", "chunks_new", "bytes_reused", "bytes_to_fetch", "requests"])
        let toFetch = try #require(figures["bytes_to_fetch"] as? Int)
        #expect(toFetch >= 10_000 && toFetch <= 3 * 128 * 1024 && figures["requests"] as? Int == 1)
        #expect(figures["bytes_reused"] as? Int == new.count - toFetch)
        #expect((figures["chunks_old"] as? Int ?? 0) >= 24 && (figures["chunks_old"] as? Int ?? 0) <= 384)

        let missing = try modelctl(["delta", a.path, scratch.appendingPathComponent("nope").path])
        #expect(missing.status == 2 && missing.stderr.contains("neither a file nor a release id"), "\(missing.stderr)")
        let bogus = try file("bogus.chunks", Data("MDCHUNK1".utf8))
        let refused = try modelctl(["delta", a.path, bogus.path])
        #expect(refused.status == 1 && refused.stderr.contains("truncated"), "\(refused.stderr)")
    }
}

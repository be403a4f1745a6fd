import ChildProcesses
import Foundation
import Testing

/// One base URL for the static file (issue #10, SPEC §9.1): the catalog records it, every writer
/// uses it, a writer configured with another one refuses naming both, `modelctl catalog
/// set-base-url` changes it deliberately — and the server's answers equal the file on disk.
@Suite(.serialized) final class CatalogBaseURLTests {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("modeld-baseurl-\(UUID().uuidString)")
    var models: URL { root.appendingPathComponent("models") }
    /// modelctl's working directory: no config/modeld.json, like the issue's offline run.
    var work: URL { root.appendingPathComponent("work") }

    init() throws { try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true) }
    deinit { try? FileManager.default.removeItem(at: root) }

    private func modelctl(_ arguments: [String]) throws -> ProcessResult {
        try ChildProcess.run(TestBinaries.modelctl, arguments, directory: work)
    }

    private func randomFile() throws -> URL {
        let file = work.appendingPathComponent("\(UUID().uuidString.prefix(8)).onnx")
        try Data((0..<4096).map { _ in UInt8.random(in: 0...255) }).write(to: file)
        return file
    }

    private func offlinePublish(_ extra: [String] = []) throws -> ProcessResult {
        try modelctl(["publish", try randomFile().path, "--sdk-min", "2.3", "--models-dir", models.path, "--json"] + extra)
    }

    private func fileOnDisk() throws -> Data { try Data(contentsOf: models.appendingPathComponent("latest_model_details.json")) }
    private func catalog() throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(contentsOf: models.appendingPathComponent("catalog.json"))) as? [String: Any])
    }

    @Test func offlineWriterServerAndSetBaseURL_shareOneBase_fileEqualsServerBytes() throws {
        // 1. An offline publish from a directory without config: the catalog records its base.
        let first = try offlinePublish()
        #expect(first.status == 0, "\(first.stderr)")
        #expect(try catalog()["public_base_url"] as? String == "http://127.0.0.1:8080")

        // 2. A server configured with another base (ModeldServer passes http://models.example.test):
        // it says so at start-up, serves the catalog's base, and its bytes are the file's.
        let server = try ModeldServer(root: root)
        let served = { try Curl.run([server.url + "/latest_model_details.json"]) }
        #expect(server.log.contains("public_base_url http://models.example.test differs from the catalog's base URL http://127.0.0.1:8080"),
                "\(server.log)")
        #expect(try served().body == fileOnDisk())
        let latest = try Curl.run([server.url + "/latest?sdk=2.3"])
        #expect((latest.json?["url"] as? String)?.hasPrefix("http://127.0.0.1:8080/models/") == true, "\(latest.text)")

        // 3. Its writes are refused, naming both, before an upload is read.
        let auth = ["--server", server.url, "--token", server.token]
        let refused = try modelctl(["publish", try randomFile().path, "--sdk-min", "1"] + auth)
        #expect(refused.status == 1)
        #expect(refused.stderr.hasPrefix("modelctl: 409 base_url_mismatch: public_base_url: the catalog's base URL is http://127.0.0.1:8080 "
                                         + "but this writer's public_base_url is http://models.example.test"), "\(refused.stderr)")
        let id = try #require((try catalog()["releases"] as? [[String: Any]])?.first?["id"] as? String)
        #expect(try modelctl(["rollout", id, "50"] + auth).status == 1)
        let curl = try Curl.run(["-H", "Authorization: Bearer \(server.token)", "--data-binary", "abc", server.url + "/admin/models?sdk_min=1&ext=bin"])
        #expect(curl.status == 409 && curl.errorCode == "base_url_mismatch")
        #expect(try catalog()["catalog_version"] as? Int == 1)

        // 4. The deliberate change: offline, under the lock; the server follows within 2 s.
        let set = try modelctl(["catalog", "set-base-url", "http://models.example.test/", "--models-dir", models.path])
        #expect(set.status == 0, "\(set.stderr)")
        #expect(set.stdout == "public_base_url: http://models.example.test (was http://127.0.0.1:8080); catalog_version 2\n")
        #expect(try catalog()["public_base_url"] as? String == "http://models.example.test")
        #expect(try String(decoding: fileOnDisk(), as: UTF8.self).contains("http://models.example.test/models/"))
        #expect(try ModeldServer.eventually(within: 5) { try served().body == fileOnDisk() })
        let again = try modelctl(["catalog", "set-base-url", "http://models.example.test", "--models-dir", models.path, "--json"])
        #expect(again.stdout == #"{"public_base_url":"http://models.example.test","previous":"http://models.example.test","changed":false,"catalog_version":2}"# + "\n")

        // 5. Now the server writes, and 6. the unconfigured offline writer adopts the catalog's base.
        let viaServer = try modelctl(["publish", try randomFile().path, "--sdk-min", "3", "--json"] + auth)
        #expect(viaServer.status == 0, "\(viaServer.stderr)")
        let offline = try offlinePublish()
        #expect(offline.status == 0, "\(offline.stderr)")
        #expect(offline.stdout.contains(#""url":"http://models.example.test/models/"#), "\(offline.stdout)")
        #expect(!String(decoding: try fileOnDisk(), as: UTF8.self).contains("127.0.0.1"))
        #expect(try ModeldServer.eventually(within: 5) { try served().body == fileOnDisk() })
        #expect(try catalog()["catalog_version"] as? Int == 4)

        // 7. An offline writer given another base refuses, naming both; nothing changes.
        let before = try fileOnDisk()
        let other = try offlinePublish(["--public-base-url", "https://other.example"])
        #expect(other.status == 1)
        #expect(other.stderr.contains("http://models.example.test") && other.stderr.contains("https://other.example")
                && other.stderr.contains("base_url_mismatch"), "\(other.stderr)")
        #expect(try fileOnDisk() == before && (try catalog()["catalog_version"] as? Int) == 4)

        // 8. A URL modeld would refuse is a usage error.
        let bad = try modelctl(["catalog", "set-base-url", "ftp://x", "--models-dir", models.path])
        #expect(bad.status == 2 && bad.stderr.contains("not an http:// or https:// URL"), "\(bad.stderr)")
    }
}

import ChildProcesses
import Foundation
import Testing

/// Static mode (SPEC §13, §12, §9.1): `modeld-client --static` against nginx serving a copy of
/// modeld's `models/` directory, as a bucket behind a CDN would.
@Suite(.serialized) final class ClientStaticTests {
    let nginx: NginxStatic
    let fx: ClientFixture
    let keys: URL

    init() throws {
        nginx = try NginxStatic()
        keys = FileManager.default.temporaryDirectory.appendingPathComponent("static-keys-\(UUID().uuidString)")
        let r = try ChildProcess.run(TestBinaries.modelctl, ["keys", "generate", "--name", "k", "--out", keys.path])
        try #require(r.status == 0, "keys generate: \(r.stderr)")
        fx = try ClientFixture(publicBaseURL: nginx.url, environment: ["MODELD_SIGNING_KEYS": keys.appendingPathComponent("k.key").path])
    }

    deinit { try? FileManager.default.removeItem(at: keys) }

    func client(_ arguments: [String]) throws -> ProcessResult {
        try ChildProcess.run(TestBinaries.modeldClient, ["--static", nginx.url + "/models/", "--sdk", "2.3", "--cache", fx.cache.path,
                                                         "--trust-key", keys.appendingPathComponent("k.pub").path] + arguments)
    }

    /// Copies modeld's models/ to the static host once the signed pointer it writes (within 2 s of
    /// a catalog change) names a snapshot holding release `id`.
    func mirror(once id: String) throws {
        let models = fx.server.modelsDir
        let current = ModeldServer.eventually(within: 10) {
            guard let data = try? Data(contentsOf: models.appendingPathComponent("latest_model_details.sig.json")),
                  let pointer = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                  let file = pointer["file"] as? String,
                  let snapshot = try? String(contentsOf: models.appendingPathComponent(file), encoding: .utf8) else { return false }
            return snapshot.contains(id)
        }
        try #require(current, "no signed pointer naming \(id)")
        let target = nginx.root.appendingPathComponent("models")
        try? FileManager.default.removeItem(at: target)
        try FileManager.default.copyItem(at: fx.server.modelsDir, to: target)
    }

    @Test func staticMode_installsFromAPlainFileServer_andAMissingSnapshotMeansLater_SPEC13() throws {
        let published = try fx.publish(size: 200_000, sdkMin: "2.0")
        try mirror(once: published.id)
        try nginx.start()

        let update = try client(["--json", "update"])
        #expect(update.status == 0, "\(update.stderr)")
        let doc = try fx.json(update)
        #expect(doc["state"] as? String == "updated")
        #expect((doc["catalog"] as? Int ?? 0) >= 1)
        let active = try #require(doc["active"] as? [String: Any])
        #expect(active["id"] as? String == published.id)
        #expect(try SHA256Sum.of(URL(fileURLWithPath: try #require(active["path"] as? String))) == published.sha256)
        #expect(try fx.json(try client(["--json", "check"]))["state"] as? String == "up_to_date")

        // A snapshot that does not match the signed pointer is rejected.
        let details = nginx.root.appendingPathComponent("models/details")
        for name in try FileManager.default.contentsOfDirectory(atPath: details.path) {
            try Data("{}".utf8).write(to: details.appendingPathComponent(name))
        }
        let tampered = try client(["--json", "check"])
        #expect(tampered.status == 1, "\(tampered.stderr)")
        #expect(try fx.json(tampered)["state"] as? String == "rejected")

        // The pointer names a snapshot the host does not have (yet): an error, never "no model".
        try FileManager.default.removeItem(at: details)
        let fresh = try ChildProcess.run(TestBinaries.modeldClient, ["--static", nginx.url + "/models/", "--sdk", "2.3",
                                                                     "--cache", fx.scratch.appendingPathComponent("fresh").path,
                                                                     "--trust-key", keys.appendingPathComponent("k.pub").path, "check"])
        #expect(fresh.status == 1 && fresh.stderr.contains("404"), "\(fresh.stderr)")
        #expect(try fx.json(try client(["--json", "status"]))["state"] as? String == "installed")
    }
}

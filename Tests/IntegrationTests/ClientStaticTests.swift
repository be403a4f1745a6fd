import Foundation
import Testing

/// Static mode (SPEC §13, §12, §9.1): `modeld-client --static` against nginx serving a copy of
/// modeld's `models/` directory, as a bucket behind a CDN would.
@Suite(.serialized) final class ClientStaticTests {
    let nginx: NginxStatic
    let fx: ClientFixture

    init() throws {
        nginx = try NginxStatic()
        fx = try ClientFixture(publicBaseURL: nginx.url)
    }

    func client(_ arguments: [String]) throws -> ProcessResult {
        try ChildProcess.run(TestBinaries.modeldClient, ["--static", nginx.url + "/models/", "--sdk", "2.3",
                                                         "--cache", fx.cache.path] + arguments)
    }

    /// Copies modeld's models/ to the static host. Without signing keys modeld writes no pointer,
    /// so one is made here from the derived file (the unsigned shape of SPEC §12's pointer).
    func mirror() throws {
        let target = nginx.root.appendingPathComponent("models")
        try? FileManager.default.removeItem(at: target)
        try FileManager.default.copyItem(at: fx.server.modelsDir, to: target)
        let pointer = target.appendingPathComponent("latest_model_details.sig.json")
        guard !FileManager.default.fileExists(atPath: pointer.path) else { return }
        let details = try Data(contentsOf: target.appendingPathComponent("latest_model_details.json"))
        try FileManager.default.createDirectory(at: target.appendingPathComponent("details"), withIntermediateDirectories: true)
        try details.write(to: target.appendingPathComponent("details/1.json"))
        let now = Int(Date().timeIntervalSince1970)
        let doc: [String: Any] = ["v": 1, "kind": "details", "catalog": 1, "created": now, "expires": now + 3600,
                                  "file": "details/1.json", "size": details.count, "sha256": try SHA256Sum.of(details),
                                  "signatures": [[String: Any]]()]
        try JSONSerialization.data(withJSONObject: doc).write(to: pointer)
    }

    @Test func staticMode_installsFromAPlainFileServer_andAMissingSnapshotMeansLater_SPEC13() throws {
        let published = try fx.publish(size: 200_000, sdkMin: "2.0")
        try mirror()
        try nginx.start()

        let update = try client(["--json", "update"])
        #expect(update.status == 0, "\(update.stderr)")
        let doc = try fx.json(update)
        #expect(doc["state"] as? String == "updated")
        let active = try #require(doc["active"] as? [String: Any])
        #expect(active["id"] as? String == published.id)
        #expect(try SHA256Sum.of(URL(fileURLWithPath: try #require(active["path"] as? String))) == published.sha256)
        #expect(try fx.json(try client(["--json", "check"]))["state"] as? String == "up_to_date")

        // The pointer names a snapshot the host does not have (yet): an error, never "no model".
        try FileManager.default.removeItem(at: nginx.root.appendingPathComponent("models/details"))
        let later = try client(["--json", "check"])
        #expect(later.status == 1 && later.stderr.contains("404"), "\(later.stderr)")
        #expect(try fx.json(try client(["--json", "status"]))["state"] as? String == "installed")
    }
}

import ChildProcesses
import ContentDigest
import Foundation
import ObjectStorage
import Testing

/// Static hosting end to end (SPEC §9.1, §12, §13): a signed offline publish, `modelctl mirror`
/// to a bucket anyone may read, then clients that hold no credentials — `modeld-client --static`
/// and plain curl — install from the bucket alone.
@Suite(.enabled(if: RGWCluster.shouldRun, RGWCluster.skipMessage), .serialized)
struct StaticBucketCLITests {
    static let modelctl = MirrorCLITests.modelctl
    static let modeldClient = URL(fileURLWithPath: modelctl).deletingLastPathComponent().appendingPathComponent("modeld-client").path

    @Test func signedPublish_mirroredToAPublicBucket_installsWithAnonymousGETs_SPEC9_1() throws {
        let cluster = try RGWCluster.require()
        let (scratch, _) = try MirrorCLITests.emptyModelsDirectory()
        defer { MirrorCLITests.remove(scratch + "/models") }
        try MirrorCLITests.writeSigningConfig(in: scratch, settings: #""latest_max_age_seconds":30"#)
        let file = try RGWClientTests.scratchFile(size: (3 << 20) + 5, seed: 7, ext: "onnx")
        defer { unlink(file.path) }
        let published = try ChildProcess.run(Self.modelctl, ["publish", file.path, "--sdk-min", "1.0", "--models-dir", "models", "--json"],
                                  directory: scratch, timeout: .seconds(60))
        try #require(published.status == 0, "\(published.stderr)")
        let id = try #require(try Self.object(published.stdout)["id"] as? String)

        // The catalog was first written for a modeld origin; the bucket topology moves its base
        // URL to the bucket, and the re-signed pointer must name the snapshot with the new URLs.
        let prefix = "s-\(UUID().uuidString)"
        let base = "\(cluster.endpoint)/\(RGWCluster.publicBucket)/\(prefix)"
        let moved = try ChildProcess.run(Self.modelctl, ["catalog", "set-base-url", base, "--models-dir", "models", "--json"], directory: scratch, timeout: .seconds(30))
        try #require(moved.status == 0, "\(moved.stderr)")
        let version = try #require(try Self.object(moved.stdout)["catalog_version"] as? Int)
        let pointer = try Self.object(try String(contentsOfFile: scratch + "/models/latest_model_details.sig.json", encoding: .utf8))
        #expect(pointer["catalog"] as? Int == version && pointer["file"] as? String == "details/\(version).json",
                "set-base-url re-signed the pointer: \(pointer)")

        try MirrorCLITests.mirrorToPublicBucket(cluster, prefix: prefix, scratch: scratch)

        // Plain anonymous GETs: the JSON (max-age from the config), then the url it names.
        let json = try Self.anonymousGET(base + "/models/latest_model_details.json", scratch: scratch)
        #expect(json.status == 200 && json.cacheControl == "public, max-age=30")
        let entry = try #require(try Self.object(String(decoding: json.body, as: UTF8.self))["1.0.0"] as? [String: Any])
        let url = try #require(entry["url"] as? String)
        #expect(url == "\(base)/models/\(id).onnx")
        let model = try Self.anonymousGET(url, scratch: scratch)
        #expect(model.status == 200 && model.cacheControl == "public, max-age=31536000, immutable")
        #expect(SHA256Hex.of(model.body) == file.sha256 && entry["sha256"] as? String == file.sha256)
        // The same anonymous GET on the private bucket is refused: the requests carry no
        // credentials, and only the public bucket's policy lets them in.
        #expect(try Self.anonymousGET("\(cluster.endpoint)/\(RGWCluster.bucket)/any", scratch: scratch).status == 403)

        // The reference client in static mode, trusting the public key: verifies the pointer,
        // the snapshot and the file, and installs.
        let client = [Self.modeldClient, "--static", base + "/models/", "--sdk", "1.2", "--cache", scratch + "/cache",
                      "--trust-key", scratch + "/config/keys/k.pub", "--json"]
        let update = try ChildProcess.run(client[0], Array(client.dropFirst()) + ["update"], timeout: .seconds(120))
        #expect(update.status == 0, "\(update.stderr)")
        let state = try Self.object(update.stdout)
        #expect(state["state"] as? String == "updated" && state["catalog"] as? Int == version, "\(update.stdout)")
        let active = try #require(state["active"] as? [String: Any])
        #expect(active["id"] as? String == id && active["sha256"] as? String == file.sha256)
        let installed = try Data(contentsOf: URL(fileURLWithPath: try #require(active["path"] as? String)))
        #expect(SHA256Hex.of(Array(installed)) == file.sha256)
        let check = try ChildProcess.run(client[0], Array(client.dropFirst()) + ["check"], timeout: .seconds(60))
        #expect(check.status == 0, "\(check.stderr)")
        #expect(try Self.object(check.stdout)["state"] as? String == "up_to_date")
    }

    /// A GET by curl with no credentials: status, Cache-Control and body.
    static func anonymousGET(_ url: String, scratch: String) throws -> (status: Int, cacheControl: String?, body: [UInt8]) {
        let bodyPath = scratch + "/get-\(UUID().uuidString)", headerPath = bodyPath + ".headers"
        defer { unlink(bodyPath); unlink(headerPath) }
        let result = try ChildProcess.run("/usr/bin/curl", ["-sS", "-o", bodyPath, "-D", headerPath, "-w", "%{http_code}", url], timeout: .seconds(60))
        try #require(result.status == 0, "curl \(url): \(result.stderr)")
        let headers = (try? String(contentsOfFile: headerPath, encoding: .utf8)) ?? ""
        let cacheControl = headers.split(separator: "\r\n").first { $0.lowercased().hasPrefix("cache-control:") }
            .map { $0.dropFirst("cache-control:".count).trimmingCharacters(in: .whitespaces) }
        return (Int(result.stdout) ?? -1, cacheControl, Array((try? Data(contentsOf: URL(fileURLWithPath: bodyPath))) ?? Data()))
    }

    static func object(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "not a JSON object: \(text)")
    }
}

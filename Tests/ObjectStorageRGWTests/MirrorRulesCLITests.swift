import ChildProcesses
import Foundation
import ModelCatalog
import ObjectStorage
import ObjectStorageCurl
import Testing

/// `modelctl mirror` and the rules files (SPEC §9.2) against the real RGW: `--watch` mirrors a
/// channel's changed rules within 5 s of the catalog change, other channels' objects are left
/// alone, and a snapshot pruned locally after `retired_grace_days` leaves the bucket through
/// §9.1's deletion schedule (so do old `details/<N>.json`).
@Suite(.enabled(if: RGWCluster.shouldRun, RGWCluster.skipMessage), .serialized)
struct MirrorRulesCLITests {
    static let modelctl = MirrorCLITests.modelctl

    private static func publish(_ models: String, channel: String, seed: UInt8) throws -> String {
        let file = try RGWClientTests.scratchFile(size: 2_000, seed: seed, ext: "gguf")
        defer { unlink(file.path) }
        let r = try ChildProcess.run(modelctl, ["publish", file.path, "--sdk-min", "1.0", "--channel", channel, "--models-dir", models,
                                     "--public-base-url", "http://cdn.example", "--json"], timeout: .seconds(60))
        try #require(r.status == 0, "\(r.stderr)")
        return try #require(r.stdout.firstRange(of: #""id":""#).map { String(r.stdout[$0.upperBound...].prefix(36)) })
    }

    @Test func watch_mirrorsAChangedChannelsRulesWithin5s_otherChannelsUntouched_SPEC9_2() throws {
        let cluster = try RGWCluster.require()
        let client = try cluster.client()
        let (_, models) = try MirrorCLITests.emptyModelsDirectory()
        defer { MirrorCLITests.remove(models) }
        let stable = try Self.publish(models, channel: "stable", seed: 1)
        _ = try Self.publish(models, channel: "beta", seed: 2)
        let prefix = "rules-\(UUID().uuidString)"
        let running = try ChildProcess.start(Self.modelctl, [
            "mirror", "--watch", "--json", "--models-dir", models, "--to", "s3://\(RGWCluster.bucket)/\(prefix)", "--endpoint", cluster.endpoint,
            "--max-age", "30"], environment: ["AWS_ACCESS_KEY_ID": cluster.credentials.accessKeyID, "AWS_SECRET_ACCESS_KEY": cluster.credentials.secretAccessKey])
        defer {
            running.signal(SIGKILL)
            _ = try? running.wait(timeout: .seconds(30))  // SIGKILLed: it cannot outlive the wait
        }
        func mirrored(_ name: String) throws -> Bool {
            let local = Array(try Data(contentsOf: URL(fileURLWithPath: models + "/" + name)))
            return try client.head("\(prefix)/models/\(name)") != nil && client.get("\(prefix)/models/\(name)") == local
        }
        #expect(try MirrorCLITests.poll(seconds: 120) { try mirrored("rules/stable.sig.json") && mirrored("rules/beta.sig.json") })
        let pointerHead = try #require(try client.head("\(prefix)/models/rules/beta.sig.json"))
        #expect(pointerHead.cacheControl == "public, max-age=30" && pointerHead.contentType == "application/json")
        #expect(try client.head("\(prefix)/models/rules/stable/1.json")?.cacheControl == "public, max-age=31536000, immutable")
        let betaBefore = try #require(try client.head("\(prefix)/models/rules/beta.sig.json"))

        // Pause stable's release (a catalog change that changes stable's rules only).
        _ = try CatalogStore(directory: models, publicBaseURL: "http://cdn.example").patch(id: stable, ReleasePatch(state: .paused))
        let changed = ContinuousClock.now
        let pointer = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: models + "/rules/stable.sig.json"))) as? [String: Any])
        let snapshot = "rules/" + (pointer["file"] as! String)
        #expect(try MirrorCLITests.poll(seconds: 10, every: 0.05) { try mirrored("rules/stable.sig.json") && mirrored(snapshot) })
        let lag = ContinuousClock.now - changed
        #expect(lag < .seconds(5), "the paused rules reached the bucket after \(lag)")
        print("rules mirror lag after a pause: \(lag)")
        let paused = try #require(try JSONSerialization.jsonObject(with: Data(try client.get("\(prefix)/models/\(snapshot)"))) as? [String: Any])
        #expect((paused["releases"] as? [Any])?.isEmpty == true)
        #expect(try client.head("\(prefix)/models/rules/beta.sig.json") == betaBefore, "beta's pointer was not re-uploaded")
    }

    @Test func prunedSnapshots_leaveTheBucketAfterMaxAge_SPEC9_2() throws {
        let cluster = try RGWCluster.require()
        let client = try cluster.client()
        let (_, models) = try MirrorCLITests.emptyModelsDirectory()
        defer { MirrorCLITests.remove(models) }
        let id = try Self.publish(models, channel: "stable", seed: 3)
        let prefix = "prune-\(UUID().uuidString)"
        let maxAge = ["--max-age", "2"]
        #expect(try MirrorCLITests.mirror(cluster, models: models, prefix: prefix, maxAge + ["--json"]).status == 0)
        let firstKey = "\(prefix)/models/rules/stable/1.json"
        #expect(try client.head(firstKey) != nil)

        // retired_grace_days 0: once the next snapshot is older than a second, 1.json is pruned.
        let store = CatalogStore(directory: models, publicBaseURL: "http://cdn.example", graceDays: 0)
        _ = try store.patch(id: id, ReleasePatch(label: "relabelled"))
        #expect(try MirrorCLITests.poll(seconds: 10, every: 0.2) {
            _ = try store.patch(id: id, ReleasePatch(label: "relabelled \(UUID().uuidString.prefix(4))"))
            return !FileManager.default.fileExists(atPath: models + "/rules/stable/1.json")
        }, "1.json was not pruned locally")
        let next = try MirrorCLITests.mirror(cluster, models: models, prefix: prefix, maxAge + ["--json"])
        #expect(next.status == 0 && next.stdout.contains(#""deleted":0"#), "\(next.stdout)\(next.stderr)")
        #expect(try client.head(firstKey) != nil, "not deleted before the pointer's max-age has passed")
        #expect(try MirrorCLITests.poll(seconds: 30, every: 0.5) {
            _ = try MirrorCLITests.mirror(cluster, models: models, prefix: prefix, maxAge + ["--json"])
            return try client.head(firstKey) == nil
        }, "the pruned snapshot was never deleted from the bucket")
        let current = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: models + "/rules/stable.sig.json"))) as? [String: Any])
        #expect(try client.head("\(prefix)/models/rules/" + (current["file"] as! String)) != nil, "the current snapshot stays")
    }
}

import ChildProcesses
import ContentDigest
import Foundation
import Testing
import TestRandomness

/// SPEC §16 from a bucket: offline publishes, `modelctl packs derive` and `modelctl mirror` put
/// each file's pack and patch in the public bucket, and `modeld-client --static` updates from
/// Ceph RGW alone: the first install by the packed file, the fine-tune by the patch from it.
@Suite(.enabled(if: RGWCluster.shouldRun, RGWCluster.skipMessage), .serialized)
struct TransferBucketCLITests {
    @Test func packedThenPatch_fromAPublicBucket_SPEC16() throws {
        let cluster = try RGWCluster.require()
        let prefix = "t-\(UUID().uuidString)"
        let (scratch, base) = try MirrorCLITests.publicBucketScratch(cluster, prefix: prefix)
        defer { MirrorCLITests.remove(scratch + "/models") }

        let weights = SyntheticWeights.float32(512 * 1024, seed: 71)   // 2 MiB
        let files = [weights, SyntheticWeights.fineTune(weights, change: 1e-3, seed: 72)].map(SyntheticWeights.data)
        func publishAndMirror(_ data: Data) throws -> String {
            let path = scratch + "/\(UUID().uuidString.prefix(8)).bin"
            try data.write(to: URL(fileURLWithPath: path))
            let published = try ChildProcess.run(MirrorCLITests.modelctl, ["publish", path, "--sdk-min", "1.0", "--models-dir", "models", "--json"],
                                                 directory: scratch, timeout: .seconds(60))
            try #require(published.status == 0, "\(published.stderr)")
            let derived = try ChildProcess.run(MirrorCLITests.modelctl, ["packs", "derive", "--models-dir", "models"], directory: scratch, timeout: .seconds(120))
            try #require(derived.status == 0, "\(derived.stderr)")
            try MirrorCLITests.mirrorToPublicBucket(cluster, prefix: prefix, scratch: scratch)
            return try #require(try StaticBucketCLITests.object(published.stdout)["id"] as? String)
        }
        let client = ["--static", base + "/models/", "--sdk", "1.2", "--cache", scratch + "/cache",
                      "--trust-key", scratch + "/config/keys/k.pub", "--json", "update"]
        func update() throws -> [String: Any] {
            let run = try ChildProcess.run(StaticBucketCLITests.modeldClient, client, timeout: .seconds(120))
            try #require(run.status == 0, "\(run.stderr)")
            return try StaticBucketCLITests.object(run.stdout)
        }
        func installed(_ state: [String: Any]) throws -> String? {
            let path = try #require((state["active"] as? [String: Any])?["path"] as? String)
            return SHA256Hex.of(Array(try Data(contentsOf: URL(fileURLWithPath: path))))
        }

        let first = try publishAndMirror(files[0])
        let pack = try StaticBucketCLITests.anonymousGET("\(base)/models/\(first).bin.pack", scratch: scratch)
        #expect(pack.status == 200 && Array(pack.body.prefix(8)) == Array("MDPACK1".utf8) + [0])
        let packed = try update()
        #expect(packed["method"] as? String == "packed", "\(packed)")
        #expect(try installed(packed) == SHA256Hex.of(Array(files[0])))
        #expect(packed["bytes_fetched"] as? Int ?? .max < files[0].count)

        let second = try publishAndMirror(files[1])
        let patched = try update()
        #expect((patched["active"] as? [String: Any])?["id"] as? String == second)
        #expect(patched["method"] as? String == "patch", "\(patched)")
        #expect(try installed(patched) == SHA256Hex.of(Array(files[1])))
        #expect(patched["bytes_fetched"] as? Int ?? .max < files[1].count * 6 / 10)
    }
}

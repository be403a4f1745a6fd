import ChildProcesses
import ContentDigest
import Foundation
import ObjectStorage
import Testing

/// SPEC §14 from a bucket: offline publishes write chunk lists, `modelctl mirror` puts each list
/// in the public bucket with its file, and `modeld-client --static` and `--rules` (SPEC §9.2: the
/// rules entries carry the same `chunks`) update by single-range GETs against Ceph RGW, with no
/// server involved.
@Suite(.enabled(if: RGWCluster.shouldRun, RGWCluster.skipMessage), .serialized)
struct DeltaBucketCLITests {
    static let modelctl = MirrorCLITests.modelctl
    static let modeldClient = StaticBucketCLITests.modeldClient

    @Test func deltaUpdate_fromAPublicBucket_fetchesOnlyTheChangedChunks_SPEC14() throws {
        let cluster = try RGWCluster.require()
        let prefix = "d-\(UUID().uuidString)"
        let (scratch, base) = try MirrorCLITests.publicBucketScratch(cluster, prefix: prefix)
        defer { MirrorCLITests.remove(scratch + "/models") }

        let old = try RGWClientTests.scratchFile(size: 5 << 20, seed: 21, ext: "gguf")
        defer { unlink(old.path) }
        var changed = old.bytes
        for i in 2_000_000..<2_150_000 { changed[i] ^= 0x5A }
        let newPath = old.path + ".v2.gguf"
        try Data(changed).write(to: URL(fileURLWithPath: newPath))
        defer { unlink(newPath) }

        func publishAndMirror(_ path: String) throws -> String {
            let published = try ChildProcess.run(Self.modelctl, ["publish", path, "--sdk-min", "1.0", "--models-dir", "models", "--json"],
                                      directory: scratch, timeout: .seconds(60))
            try #require(published.status == 0, "\(published.stderr)")
            try MirrorCLITests.mirrorToPublicBucket(cluster, prefix: prefix, scratch: scratch)
            return try #require(try StaticBucketCLITests.object(published.stdout)["id"] as? String)
        }
        let first = try publishAndMirror(old.path)
        // The list is in the bucket next to its file, as modeld serves it.
        let list = try StaticBucketCLITests.anonymousGET("\(base)/models/\(first).gguf.chunks", scratch: scratch)
        #expect(list.status == 200 && Array(list.body.prefix(8)) == Array("MDCHUNK1".utf8))
        #expect(list.cacheControl == "public, max-age=31536000, immutable")

        // The same bucket read two ways: the details pointer, and the channel's rules evaluated here.
        let clients = ["--static", "--rules"].map { mode in
            [Self.modeldClient, mode, base + "/models/", "--sdk", "1.2", "--cache", scratch + "/cache" + mode,
             "--trust-key", scratch + "/config/keys/k.pub", "--json", "update"]
        }
        for client in clients {
            let installed = try ChildProcess.run(client[0], Array(client.dropFirst()), timeout: .seconds(120))
            try #require(installed.status == 0, "\(client[1]): \(installed.stderr)")
        }

        let second = try publishAndMirror(newPath)
        let plan = try ChildProcess.run(Self.modelctl, ["delta", first, second, "--json", "--models-dir", "models"], directory: scratch, timeout: .seconds(60))
        let toFetch = try #require(try StaticBucketCLITests.object(plan.stdout)["bytes_to_fetch"] as? Int)
        #expect(toFetch >= 150_000 && toFetch < 600_000)
        for client in clients {
            let updated = try ChildProcess.run(client[0], Array(client.dropFirst()), timeout: .seconds(120))
            #expect(updated.status == 0, "\(client[1]): \(updated.stderr)")
            let state = try StaticBucketCLITests.object(updated.stdout)
            let active = try #require(state["active"] as? [String: Any])
            #expect(active["id"] as? String == second, "\(client[1])")
            #expect(SHA256Hex.of(Array(try Data(contentsOf: URL(fileURLWithPath: try #require(active["path"] as? String)))))
                    == SHA256Hex.of(changed))
            #expect(state["method"] as? String == "delta", "\(client[1]): \(state)")
            let fetched = try #require(state["bytes_fetched"] as? Int)
            #expect(fetched >= toFetch && fetched < toFetch + 100_000, "\(client[1]) fetched \(fetched) for \(toFetch) of changed chunks")
        }
    }
}

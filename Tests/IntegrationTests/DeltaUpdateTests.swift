import ChildProcesses
import Foundation
import NginxProxySupport
import Testing
import TestRandomness
#if canImport(Glibc)
import Glibc
#endif

/// SPEC §14 end to end: modeld publishes a chunk list per file and serves it; the real
/// `modeld-client` builds a new release from the chunks of its cached one plus single-range GETs
/// through a `FaultProxy`, falls back to a full download on a bad chunk or a 200 to a range, and
/// resumes after SIGKILL.
@Suite(.serialized) final class DeltaUpdateTests {
    let fx: ClientFixture

    init() throws { fx = try ClientFixture() }

    /// Seeded bytes (incompressible, reproducible).
    static func bytes(_ count: Int, seed: UInt64) -> Data {
        var g = SeededGenerator(state: seed)
        var out = [UInt8](repeating: 0, count: count)
        var i = 0
        while i < count {
            let word = g.next()
            for k in 0..<min(8, count - i) { out[i + k] = UInt8(truncatingIfNeeded: word >> (8 * UInt64(k))) }
            i += 8
        }
        return Data(out)
    }

    func publish(_ data: Data) throws -> (id: String, sha256: String, document: [String: Any]) {
        let file = fx.scratch.appendingPathComponent("\(UUID().uuidString.prefix(8)).bin")
        try data.write(to: file)
        let r = try ChildProcess.run(TestBinaries.modelctl, ["publish", file.path, "--sdk-min", "2.0", "--json",
                                                             "--server", fx.server.url, "--token", fx.server.token])
        try #require(r.status == 0, "modelctl publish failed: \(r.stderr)")
        let release = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        return (try #require(release["id"] as? String), try #require(release["sha256"] as? String), release)
    }

    func rangeRequests(_ id: String) -> [FaultProxy.Seen] {
        fx.modelRequests(id).filter { $0.headers["range"] != nil }
    }

    @Test func publishedChunkList_isNamedByTheDocument_andServedLikeAModelFile_SPEC14() throws {
        let data = Self.bytes(300_000, seed: 1)
        let published = try publish(data)
        let chunks = try #require(published.document["chunks"] as? [String: Any], "\(published.document)")
        let url = try #require(chunks["url"] as? String)
        #expect(url.hasSuffix("/models/\(published.id).bin.chunks"))
        let latest = try fx.client(["--json", "check"])
        #expect(latest.status == 0, "\(latest.stderr)")

        let path = "/models/\(published.id).bin.chunks"
        let get = try Curl.run([fx.server.url + path])
        #expect(get.status == 200)
        #expect(get.header("Content-Type") == "application/octet-stream")
        #expect(get.header("ETag") == "\"\(chunks["sha256"] as? String ?? "")\"")
        #expect(get.header("Cache-Control") == "public, max-age=31536000, immutable")
        #expect(get.body.count == chunks["size"] as? Int)
        #expect(try SHA256Sum.of(get.body) == chunks["sha256"] as? String)
        #expect(Array(get.body.prefix(8)) == Array("MDCHUNK1".utf8))
        let range = try Curl.run(["-H", "Range: bytes=0-7", fx.server.url + path])
        #expect(range.status == 206 && range.body == Data("MDCHUNK1".utf8))
        // The list on disk is the one `modelctl delta` reads for the release id.
        let delta = try ChildProcess.run(TestBinaries.modelctl, ["delta", published.id, published.id, "--json", "--models-dir", fx.server.modelsDir.path])
        #expect(delta.status == 0, "\(delta.stderr)")
        let figures = try #require(try JSONSerialization.jsonObject(with: Data(delta.stdout.utf8)) as? [String: Any])
        #expect(figures["bytes_to_fetch"] as? Int == 0 && figures["bytes_reused"] as? Int == 300_000 && figures["requests"] as? Int == 0)
    }

    @Test func update_fetchesOnlyTheMissingChunks_byRange_andVerifies_SPEC14() throws {
        let old = Self.bytes(6 << 20, seed: 2)
        let first = try publish(old)
        let installed = try fx.client(["--json", "update"])
        #expect(installed.status == 0, "\(installed.stderr)")
        #expect(try fx.json(installed)["bytes_fetched"] as? Int ?? 0 >= 6 << 20)

        var new = Data(count: 64) + old          // a shifted header…
        new.replaceSubrange(3_000_000..<3_200_000, with: Self.bytes(200_000, seed: 3))   // …and a new "head"
        let second = try publish(new)
        let updated = try fx.client(["--json", "update"])
        #expect(updated.status == 0, "\(updated.stderr)")
        let doc = try fx.json(updated)
        let active = try #require(doc["active"] as? [String: Any])
        #expect(active["id"] as? String == second.id)
        #expect(try SHA256Sum.of(URL(fileURLWithPath: try #require(active["path"] as? String))) == second.sha256)
        let fetched = try #require(doc["bytes_fetched"] as? Int)
        #expect(fetched > 200_000 && fetched < 1_000_000, "fetched \(fetched) of \(new.count) bytes")
        let ranges = rangeRequests(second.id)
        #expect(!ranges.isEmpty && ranges.allSatisfy { $0.headers["if-range"] == "\"\(second.sha256)\"" })
        #expect(ranges.allSatisfy { !($0.headers["range"] ?? "").contains(",") })   // single ranges only
        #expect(fx.modelRequests(second.id).allSatisfy { $0.headers["range"] != nil })
        // Queued events go out with the next check: what is left is this install's.
        let props = try fx.activationProps()
        #expect(props.last?["method"] as? String == "delta" && props.last?["bytes_fetched"] as? Int == fetched)

        let delta = try ChildProcess.run(TestBinaries.modelctl, ["delta", first.id, second.id, "--json", "--models-dir", fx.server.modelsDir.path])
        let figures = try #require(try JSONSerialization.jsonObject(with: Data(delta.stdout.utf8)) as? [String: Any])
        let toFetch = try #require(figures["bytes_to_fetch"] as? Int)
        #expect(figures["requests"] as? Int == ranges.count)
        #expect(fetched >= toFetch && fetched <= toFetch + 200_000, "fetched \(fetched), plan \(toFetch) + the chunk list")
    }

    /// Rules mode (SPEC §9.2): the snapshot's entry carries the file's `chunks`, so a device that
    /// evaluates rules updates by the same delta path, reading only rules/ and models/.
    @Test func rulesMode_updatesByDelta_fetchingOnlyTheChangedChunks_SPEC9_2_SPEC14() throws {
        let rules = ["--rules", fx.proxy.url, "--sdk", "2.3", "--cache", fx.cache.path]
        let old = Self.bytes(6 << 20, seed: 21)
        let first = try publish(old)
        let installed = try ChildProcess.run(TestBinaries.modeldClient, rules + ["--json", "update"])
        #expect(installed.status == 0, "\(installed.stderr)")
        #expect(try fx.json(installed)["method"] as? String == "full")

        var new = old
        new.replaceSubrange(3_000_000..<3_200_000, with: Self.bytes(200_000, seed: 22))   // a new head
        let second = try publish(new)
        let updated = try ChildProcess.run(TestBinaries.modeldClient, rules + ["--json", "update"])
        #expect(updated.status == 0, "\(updated.stderr)")
        let doc = try fx.json(updated)
        let active = try #require(doc["active"] as? [String: Any])
        #expect(active["id"] as? String == second.id)
        #expect(try SHA256Sum.of(URL(fileURLWithPath: try #require(active["path"] as? String))) == second.sha256)
        #expect(doc["method"] as? String == "delta", "\(doc)")
        let fetched = try #require(doc["bytes_fetched"] as? Int)
        let plan = try ChildProcess.run(TestBinaries.modelctl, ["delta", first.id, second.id, "--json", "--models-dir", fx.server.modelsDir.path])
        let toFetch = try #require((try JSONSerialization.jsonObject(with: Data(plan.stdout.utf8)) as? [String: Any])?["bytes_to_fetch"] as? Int)
        #expect(fetched >= toFetch && fetched <= toFetch + 200_000 && fetched < new.count / 10, "fetched \(fetched), plan \(toFetch) + the chunk list")
        #expect(fx.proxy.relayedBytes("/models/\(second.id).bin") == toFetch)
        #expect(fx.modelRequests(second.id).allSatisfy { $0.headers["range"] != nil })
        #expect(try fx.activationProps().last?["method"] as? String == "delta")
        #expect(fx.latestRequests.isEmpty, "rules mode asked /latest")
    }

    @Test func corruptChunk_orA200ToARange_fallsBackToOneFullDownload_SPEC14() throws {
        let old = Self.bytes(3 << 20, seed: 4)
        _ = try publish(old)
        #expect(try fx.client(["update"]).status == 0)

        var new = old
        new.replaceSubrange(1_000_000..<1_100_000, with: Self.bytes(100_000, seed: 5))
        let second = try publish(new)
        fx.proxy.add(.init(pathContains: "/models/\(second.id).bin", fault: .flipByte(at: 1000), times: 1))
        let result = try fx.client(["--json", "update"])
        #expect(result.status == 0, "\(result.stderr)")
        let active = try #require(try fx.json(result)["active"] as? [String: Any])
        #expect(try SHA256Sum.of(URL(fileURLWithPath: try #require(active["path"] as? String))) == second.sha256)
        let requests = fx.modelRequests(second.id)
        #expect(requests.count == 2 && requests.first?.headers["range"] != nil && requests.last?.headers["range"] == nil)
        #expect(try fx.activationProps().last?["method"] as? String == "full")
        let fetched = try #require(try fx.json(result)["bytes_fetched"] as? Int)
        #expect(fetched >= new.count && Double(fetched) <= 1.2 * Double(new.count))

        // A cache that ignores Range answers 200: the same fallback.
        var third = new
        third.replaceSubrange(2_000_000..<2_100_000, with: Self.bytes(100_000, seed: 6))
        let release = try publish(third)
        fx.proxy.add(.init(pathContains: "/models/\(release.id).bin", fault: .ignoreRange, times: 1))
        let again = try fx.client(["--json", "update"])
        #expect(again.status == 0, "\(again.stderr)")
        let now = try #require(try fx.json(again)["active"] as? [String: Any])
        #expect(now["id"] as? String == release.id)
        #expect(try SHA256Sum.of(URL(fileURLWithPath: try #require(now["path"] as? String))) == release.sha256)
        #expect(try fx.activationProps().last?["method"] as? String == "full")
        #expect(try FileManager.default.contentsOfDirectory(atPath: fx.cache.appendingPathComponent("channels/stable/partial").path).isEmpty)
    }

    @Test func sigkillDuringADelta_resumes_fetchingAtMostTheMissingBytesPlus8MiB_SPEC14() throws {
        let old = Self.bytes(24 << 20, seed: 7)
        let first = try publish(old)
        #expect(try fx.client(["update"]).status == 0)
        var new = old
        new.replaceSubrange(4 << 20..<20 << 20, with: Self.bytes(16 << 20, seed: 8))   // two thirds changed
        let second = try publish(new)
        let plan = try ChildProcess.run(TestBinaries.modelctl, ["delta", first.id, second.id, "--json", "--models-dir", fx.server.modelsDir.path])
        let missing = try #require((try JSONSerialization.jsonObject(with: Data(plan.stdout.utf8)) as? [String: Any])?["bytes_to_fetch"] as? Int)

        fx.proxy.add(.init(pathContains: "/models/\(second.id).bin", fault: .throttle(bytesPerSecond: 1 << 20), times: 4))
        let process = try fx.startClient(["update"])
        let checkpoint = fx.cache.appendingPathComponent("channels/stable/partial/\(second.id).delta.json")
        // The first checkpoint after the copies, then one past 2 MiB fetched.
        var seen = 0
        let sawProgress = ModeldServer.eventually(within: 30) {
            guard let data = try? Data(contentsOf: checkpoint),
                  let c = try? JSONSerialization.jsonObject(with: data) as? [String: Any], let fetched = c["fetched"] as? Int else { return false }
            seen = fetched
            return fetched >= 2 << 20
        }
        process.signal(SIGKILL)
        try process.wait(timeout: .seconds(10))
        try #require(sawProgress, "no checkpoint past 2 MiB within 30 s (last \(seen))")
        fx.proxy.clearRules()

        let resumed = try fx.client(["--json", "update"])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        let active = try #require(try fx.json(resumed)["active"] as? [String: Any])
        #expect(try SHA256Sum.of(URL(fileURLWithPath: try #require(active["path"] as? String))) == second.sha256)
        #expect(try fx.activationProps().last?["method"] as? String == "delta")
        // What reached the client over both runs (the proxy's count: the server's own includes
        // what sat in socket buffers of the killed connections).
        let bytes = fx.proxy.relayedBytes("/models/\(second.id).bin")
        #expect(bytes >= missing && bytes <= missing + 8 << 20, "fetched \(bytes) bytes for \(missing) missing")
        #expect(!FileManager.default.fileExists(atPath: checkpoint.path))
    }

    /// SPEC v6 §13.2: ranges stalled by the network have their chunks in place made durable 2 s
    /// into the stall (8 MiB arrive faster than the 2 s rule), so after a SIGKILL the resumed
    /// build fetches only what it lacked, plus at most the chunk that was half in.
    @Test func sigkillDuringAStalledDelta_keepsTheChunksInPlace_SPEC13_2() throws {
        let old = Self.bytes(24 << 20, seed: 17)
        let first = try publish(old)
        #expect(try fx.client(["update"]).status == 0)
        var new = old
        new.replaceSubrange(4 << 20..<20 << 20, with: Self.bytes(16 << 20, seed: 18))
        let second = try publish(new)
        let plan = try ChildProcess.run(TestBinaries.modelctl, ["delta", first.id, second.id, "--json", "--models-dir", fx.server.modelsDir.path])
        let missing = try #require((try JSONSerialization.jsonObject(with: Data(plan.stdout.utf8)) as? [String: Any])?["bytes_to_fetch"] as? Int)
        // Each range is at most 8 MiB (DeltaPlan); every one in flight stalls after 6 MiB.
        let target = "/models/\(second.id).bin"
        fx.proxy.add(.init(pathContains: target, fault: .stallAfter(6 << 20), times: 4))
        // Killed once the stall is 2.5 s old and the record counts every byte the proxy sent.
        let fetched = { self.fx.partialRecord("\(second.id).delta.json", "fetched") }
        try fx.killDuringStall(try fx.startClient(["update"])) { fetched() == fx.proxy.relayedBytes(target) }
        #expect(fetched() >= 6 << 20)

        let resumed = try fx.client(["--json", "update"])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect((try fx.json(resumed)["active"] as? [String: Any])?["id"] as? String == second.id)
        #expect(try fx.activationProps().last?["method"] as? String == "delta")
        // At most the chunk each stalled range had half in is fetched twice (chunks ≤ 128 KiB).
        let bytes = fx.proxy.relayedBytes(target)
        #expect(bytes >= missing && bytes <= missing + 4 * (128 << 10), "fetched \(bytes) bytes for \(missing) missing")
    }

    /// Behind the shipped nginx cache (SPEC §9): ranges are answered from its cache, 206 each.
    @Test func throughTheNginxCacheProxy_theDeltaIsBuiltFromRanges_SPEC14() throws {
        let nginx = try NginxProxy(upstreams: ["127.0.0.1:\(fx.server.port)"])
        fx.proxy.upstreamPort = nginx.port    // client → FaultProxy (counting) → nginx → modeld
        let old = Self.bytes(4 << 20, seed: 11)
        _ = try publish(old)
        #expect(try fx.client(["update"]).status == 0)
        var new = old
        new.replaceSubrange(1_500_000..<1_600_000, with: Self.bytes(100_000, seed: 12))
        let second = try publish(new)
        let updated = try fx.client(["--json", "update"])
        #expect(updated.status == 0, "\(updated.stderr)")
        let doc = try fx.json(updated)
        let active = try #require(doc["active"] as? [String: Any])
        #expect(try SHA256Sum.of(URL(fileURLWithPath: try #require(active["path"] as? String))) == second.sha256)
        #expect(try fx.activationProps().last?["method"] as? String == "delta")
        let fetched = try #require(doc["bytes_fetched"] as? Int)
        #expect(fetched < 600_000, "fetched \(fetched)")
        #expect(fx.proxy.relayedBytes("/models/\(second.id).bin") < 600_000)
        #expect(nginx.accessLog.contains("/models/\(second.id).bin"), "\(nginx.accessLog.suffix(800))")
    }
}

import ChildProcesses
import Foundation
import NginxProxySupport
import Testing
import TestRandomness
#if canImport(Glibc)
import Glibc
#endif

/// SPEC §16 end to end: modeld derives each release's packed file and its patch from the
/// release before; the real `modeld-client`, through a `FaultProxy`, takes the way with the
/// fewest bytes (a patch from its model, else the packed file), decodes it block by block,
/// falls back once to the full file when the coded bytes are damaged or missing, and resumes
/// by range after SIGKILL.
@Suite(.serialized) final class TransferUpdateTests {
    let fx: ClientFixture

    init() throws { fx = try ClientFixture() }

    struct Published {
        let id: String
        let sha256: String
        let size: Int
        /// The answer once derived: its `packed`, `patches` and `chunks` objects.
        let answer: [String: Any]

        var packed: [String: Any] { answer["packed"] as? [String: Any] ?? [:] }
        var patch: [String: Any] { (answer["patches"] as? [[String: Any]])?.first ?? [:] }
        var chunksSize: Int { (answer["chunks"] as? [String: Any])?["size"] as? Int ?? 0 }
        func path(_ object: [String: Any]) -> String { URL(string: object["url"] as? String ?? "")?.path ?? "" }
    }

    /// Publishes `floats`, derives its pack and patches with `modelctl packs derive` on the
    /// server's directory, then waits until the server's answer names the pack and, with
    /// `patchFrom`, the patch from that release (SPEC §16). Not modeld's own deriver: it runs at
    /// SCHED_IDLE, which the rest of `make test` starves (TransferPublishTests covers it).
    func publish(_ floats: [Float], patchFrom base: String? = nil) throws -> Published {
        let file = fx.scratch.appendingPathComponent("\(UUID().uuidString.prefix(8)).bin")
        try SyntheticWeights.data(floats).write(to: file)
        let release = try fx.publish(file: file)
        let derive = try ChildProcess.run(TestBinaries.modelctl, ["packs", "derive", "--models-dir", fx.server.modelsDir.path], timeout: .seconds(120))
        try #require(derive.status == 0, "packs derive: \(derive.stderr)")
        var answer: [String: Any] = [:]
        let derived = try ModeldServer.eventually(within: 120) {
            answer = try Curl.run([fx.server.url + "/latest?sdk=2.3"]).json ?? [:]
            let patches = answer["patches"] as? [[String: Any]] ?? []
            return answer["id"] as? String == release.id && answer["packed"] != nil && (base == nil || patches.first?["from"] as? String == base)
        }
        try #require(derived, "not derived within 120 s: \(answer)")
        return Published(id: release.id, sha256: release.sha256, size: 4 * floats.count, answer: answer)
    }

    /// Publishes `count` weights, installs them in the fixture's cache, then publishes a
    /// fine-tune of them (relative change 1e-3) and waits for its pack and its patch from them.
    func installedBaseAndFineTune(_ count: Int, seed: UInt64) throws -> (base: Published, tuned: Published) {
        let weights = SyntheticWeights.float32(count, seed: seed)
        let base = try publish(weights)
        let installed = try fx.client(["update"])
        try #require(installed.status == 0, "\(installed.stderr)")
        return (base, try publish(SyntheticWeights.fineTune(weights, change: 1e-3, seed: seed + 1), patchFrom: base.id))
    }

    /// `modeld-client --json update` (in `cache`, default the fixture's): its document, once it
    /// exited 0 having installed a file with `sha256`.
    func update(expecting sha256: String, cache: URL? = nil) throws -> [String: Any] {
        let run = try fx.client(["--json", "update"], cache: cache)
        try #require(run.status == 0, "\(run.stderr)")
        let doc = try fx.json(run)
        let path = try #require((doc["active"] as? [String: Any])?["path"] as? String)
        #expect(try SHA256Sum.of(URL(fileURLWithPath: path)) == sha256)
        return doc
    }

    func requests(_ path: String) -> [FaultProxy.Seen] { fx.proxy.seen.filter { $0.target == path } }

    @Test func aFineTune_arrivesAsAPatch_andADeviceWithoutItsBase_takesThePack_SPEC16() throws {
        let (_, b) = try installedBaseAndFineTune(512 * 1024, seed: 31)   // 2 MiB
        let doc = try update(expecting: b.sha256)
        #expect(doc["method"] as? String == "patch", "\(doc)")
        let patchSize = try #require(b.patch["size"] as? Int)
        let fetched = try #require(doc["bytes_fetched"] as? Int)
        #expect(fetched == patchSize + b.chunksSize && fetched < b.size * 6 / 10, "fetched \(fetched) of \(b.size)")
        #expect(requests(b.path(b.patch)).count == 1 && requests("/models/\(b.id).bin").isEmpty)
        let props = try #require(try fx.activationProps().last)
        #expect(props["method"] as? String == "patch" && props["bytes_fetched"] as? Int == fetched)

        // A device with no model: no patch has its base there, and the pack beats the file.
        let fresh = fx.scratch.appendingPathComponent("fresh-cache")
        let packedDoc = try update(expecting: b.sha256, cache: fresh)
        #expect(packedDoc["method"] as? String == "packed", "\(packedDoc)")
        #expect(packedDoc["bytes_fetched"] as? Int == (b.packed["size"] as? Int ?? 0) + b.chunksSize)
        #expect(try fx.activationProps(cache: fresh).last?["method"] as? String == "packed")
    }

    @Test func aDamagedPatch_orAMissingPack_fallsBackOnceToTheFullFile_SPEC16() throws {
        let (_, b) = try installedBaseAndFineTune(512 * 1024, seed: 41)
        // One byte flipped in the last block of the patch on the server's disk, in place.
        let patchFile = fx.server.modelsDir.appendingPathComponent(URL(fileURLWithPath: b.path(b.patch)).lastPathComponent)
        let patchSize = try #require(b.patch["size"] as? Int)
        let handle = try FileHandle(forUpdating: patchFile)
        try handle.seek(toOffset: UInt64(patchSize - 1000))
        let byte = try #require(try handle.read(upToCount: 1)?.first)
        try handle.seek(toOffset: UInt64(patchSize - 1000))
        try handle.write(contentsOf: [byte ^ 0x40])
        try handle.close()

        let doc = try update(expecting: b.sha256)
        #expect(doc["method"] as? String == "full", "\(doc)")
        #expect(requests(b.path(b.patch)).count == 1, "the patch once")
        #expect(requests("/models/\(b.id).bin").map { $0.headers["range"] } == [nil], "then the whole file once")
        #expect(requests(b.path(b.packed)).isEmpty, "no second cheaper way")
        let fetched = try #require(doc["bytes_fetched"] as? Int)
        #expect(fetched > b.size && fetched <= b.size + patchSize + b.chunksSize, "fetched \(fetched)")
        #expect(try fx.activationProps().last?["method"] as? String == "full")
        #expect(try FileManager.default.contentsOfDirectory(atPath: fx.cache.appendingPathComponent("channels/stable/partial").path).isEmpty)

        // A pack the cache or bucket does not have (404): the same single fallback.
        let fresh = fx.scratch.appendingPathComponent("fresh-cache")
        fx.proxy.add(.init(pathContains: b.path(b.packed), fault: .respond(status: "404 Not Found", headers: [], body: []), times: 1))
        let fullDoc = try update(expecting: b.sha256, cache: fresh)
        #expect(fullDoc["method"] as? String == "full", "\(fullDoc)")
        #expect(requests(b.path(b.packed)).count == 1 && requests("/models/\(b.id).bin").count == 2)
    }

    @Test func sigkillDuringAPatch_resumesByRange_fetchingOnlyWhatItLacked_SPEC16() throws {
        let (_, b) = try installedBaseAndFineTune(768 * 1024, seed: 51)   // 3 MiB: a patch of about 1.6 MiB in 3 blocks
        let patchPath = b.path(b.patch)
        let patchSize = try #require(b.patch["size"] as? Int)

        fx.proxy.add(.init(pathContains: patchPath, fault: .throttle(bytesPerSecond: 256 << 10), times: 1))
        let process = try fx.startClient(["update"])
        let checkpoint = fx.cache.appendingPathComponent("channels/stable/partial/\(b.id).decoded.json")
        let recorded = { self.fx.partialRecord(checkpoint.lastPathComponent, "offset") }
        // The first checkpoint comes with the first block done 2 s in (CheckpointPolicy).
        let sawCheckpoint = ModeldServer.eventually(within: 30) { recorded() > 0 }
        process.signal(SIGKILL)
        try process.wait(timeout: .seconds(10))
        try #require(sawCheckpoint, "no checkpoint within 30 s")
        let offset = recorded()
        #expect(offset < patchSize, "killed after the whole patch arrived")
        fx.proxy.clearRules()

        let doc = try update(expecting: b.sha256)
        #expect(doc["method"] as? String == "patch", "\(doc)")
        let last = try #require(requests(patchPath).last)
        #expect(last.headers["range"] == "bytes=\(offset)-" && last.headers["if-range"] == "\"\(b.patch["sha256"] as? String ?? "")\"")
        // Exactly the rest, by the client's own count (the proxy's would include what sat in the
        // killed connection's socket buffers).
        #expect(doc["bytes_fetched"] as? Int == patchSize - offset + b.chunksSize)
        #expect(!FileManager.default.fileExists(atPath: checkpoint.path))
    }

    /// SPEC v6 §13.2: a packed file stalled by the network mid-way has its decoded blocks made
    /// durable 2 s into the stall (faster than the 2 s rule while the bytes flowed), so a SIGKILL
    /// then costs only the block that was not all in.
    @Test func sigkillDuringAStalledPack_resumesByRangeFromTheBlocksDecoded_SPEC13_2() throws {
        let packed = try publish(SyntheticWeights.float32(1024 * 1024, seed: 71))   // 4 MiB: 4 blocks
        let packPath = packed.path(packed.packed)
        let packSize = try #require(packed.packed["size"] as? Int)
        fx.proxy.add(.init(pathContains: packPath, fault: .stallAfter(packSize * 7 / 10), times: 1))
        let record = "\(packed.id).decoded.json"
        try fx.killDuringStall(try fx.startClient(["update"])) { fx.partialRecord(record, "offset") > 0 }
        let offset = fx.partialRecord(record, "offset")
        #expect(offset > 0 && offset < packSize * 7 / 10, "checkpoint at \(offset) of \(packSize)")

        let doc = try update(expecting: packed.sha256)
        #expect(doc["method"] as? String == "packed", "\(doc)")
        #expect(requests(packPath).last?.headers["range"] == "bytes=\(offset)-")
        #expect(doc["bytes_fetched"] as? Int == packSize - offset + packed.chunksSize)
    }

    /// Behind the shipped nginx cache (SPEC §9): the patch is a cacheable immutable file too.
    @Test func throughTheNginxCacheProxy_thePatchArrives_SPEC16() throws {
        let nginx = try NginxProxy(upstreams: ["127.0.0.1:\(fx.server.port)"])
        fx.proxy.upstreamPort = nginx.port    // client → FaultProxy (counting) → nginx → modeld
        let (_, b) = try installedBaseAndFineTune(512 * 1024, seed: 61)
        let doc = try update(expecting: b.sha256)
        #expect(doc["method"] as? String == "patch", "\(doc)")
        #expect(nginx.accessLog.contains(b.path(b.patch)), "\(nginx.accessLog.suffix(800))")
    }
}

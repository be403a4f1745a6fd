import ChildProcesses
import Foundation
import Testing
import TestRandomness

/// Packed files and patches at publish (SPEC §16) through the real binaries: modeld derives
/// them after the publish answered, records them, answers them in /latest, the rules snapshot
/// and the details, serves them like model files, survives a SIGKILL, and collects them.
@Suite(.serialized) final class TransferPublishTests {
    /// `count` weights and their 1e-3 fine-tune published in that order to a modeld that derives
    /// packs and patches; returns once /latest answers the fine-tune with its pack and one patch.
    static func publishFineTune(_ fx: CatalogFixture, count: Int, seed: UInt64)
        throws -> (base: [Float], oldURL: URL, new: Data, a: String, b: String, latest: [String: Any]) {
        let base = SyntheticWeights.float32(count, seed: seed)
        let old = SyntheticWeights.data(base), new = SyntheticWeights.data(SyntheticWeights.fineTune(base, change: 1e-3, seed: seed + 1))
        let oldURL = fx.scratch.appendingPathComponent("old.bin"), newURL = fx.scratch.appendingPathComponent("new.bin")
        try old.write(to: oldURL)
        try new.write(to: newURL)
        let a = try #require(try fx.publish(oldURL)["id"] as? String)
        let b = try #require(try fx.publish(newURL)["id"] as? String)
        // The answer gains both once derived (the publish itself did not wait for them).
        var latest: [String: Any] = [:]
        #expect(try ModeldServer.eventually(within: 90) {
            latest = try fx.curl("/latest?sdk=1.0").json ?? [:]
            return latest["id"] as? String == b && latest["packed"] != nil && (latest["patches"] as? [Any])?.count == 1
        }, "\(latest)")
        return (base, oldURL, new, a, b, latest)
    }

    @Test(.timeLimit(.minutes(4)))
    func publish_derivesPackAndPatch_answeredServedRecoveredAndCollected_SPEC16() throws {
        let fx = try CatalogFixture(environment: ["MODELD_PACK_AT_PUBLISH": "true", "MODELD_RETIRED_GRACE_DAYS": "0"])
        let (base, oldURL, new, a, b, latest) = try Self.publishFineTune(fx, count: 768 * 1024, seed: 7)   // 3 MiB
        let packed = try #require(latest["packed"] as? [String: Any])
        let patch = try #require((latest["patches"] as? [[String: Any]])?.first)
        #expect(packed["url"] as? String == "http://models.example.test/models/\(b).bin.pack")
        #expect(packed["width"] as? Int == 4)
        #expect(patch["from"] as? String == a)
        #expect(patch["url"] as? String == "http://models.example.test/models/\(b).bin.from-\(a).patch")
        let packSize = try #require(packed["size"] as? Int), patchSize = try #require(patch["size"] as? Int)
        #expect(packSize * 100 <= new.count * 95 && patchSize * 10 <= packSize * 9, "pack \(packSize), patch \(patchSize) of \(new.count)")

        // The same objects in the details and the rules snapshot, which the signatures cover.
        let details = try #require(try fx.curl("/latest_model_details.json").json?["1.0.0"] as? [String: Any])
        #expect((details["packed"] as? [String: Any])?["sha256"] as? String == packed["sha256"] as? String)
        #expect((details["patches"] as? [[String: Any]])?.first?["url"] as? String == patch["url"] as? String)
        // The rules files are written just after catalog.json, which the watcher may serve first.
        var entry: [String: Any] = [:]
        #expect(try ModeldServer.eventually(within: 10) {
            let pointer = try fx.curl("/rules/stable.sig.json").json ?? [:]
            let rules = try fx.curl("/rules/" + (pointer["file"] as? String ?? "")).json?["releases"] as? [[String: Any]] ?? []
            entry = rules.first { $0["id"] as? String == b } ?? [:]
            return entry["packed"] != nil
        }, "\(entry)")
        #expect((entry["packed"] as? [String: Any])?["url"] as? String == packed["url"] as? String)
        #expect((entry["patches"] as? [[String: Any]])?.first?["sha256"] as? String == patch["sha256"] as? String)

        // Served like model files: the digest as ETag, ranges, the isolation headers.
        let packFile = fx.scratch.appendingPathComponent("b.pack"), patchFile = fx.scratch.appendingPathComponent("b.patch")
        let get = try fx.curl("/models/\(b).bin.pack", output: packFile)
        #expect(get.status == 200 && get.header("ETag") == "\"\(packed["sha256"] as? String ?? "")\"")
        #expect(get.header("Cache-Control") == "public, max-age=31536000, immutable" && get.header("Accept-Ranges") == "bytes")
        #expect(get.header("Content-Security-Policy") == "sandbox" && get.header("X-Content-Type-Options") == "nosniff")
        #expect(try SHA256Sum.of(packFile) == packed["sha256"] as? String)
        #expect(try fx.curl("/models/\(b).bin.pack", ["-H", "If-None-Match: \(get.header("ETag") ?? "")"]).status == 304)
        let range = try fx.curl("/models/\(b).bin.pack", ["-r", "100-199"])
        let packBytes = try Data(contentsOf: packFile)
        #expect(range.status == 206 && range.body == packBytes.subdata(in: 100..<200))
        #expect(try fx.curl("/models/\(b).bin.from-\(a).patch", output: patchFile).status == 200)
        #expect(try SHA256Sum.of(patchFile) == patch["sha256"] as? String)

        // Both decode to exactly the published file.
        let unpacked = fx.scratch.appendingPathComponent("unpacked.bin"), patched = fx.scratch.appendingPathComponent("patched.bin")
        let unpack = { (arguments: [String]) in try ChildProcess.run(TestBinaries.modelctl, ["unpack"] + arguments, timeout: .seconds(60)) }
        #expect(try unpack([packFile.path, "--output", unpacked.path]).status == 0)
        #expect(try unpack([patchFile.path, "--base", oldURL.path, "--output", patched.path]).status == 0)
        #expect(try Data(contentsOf: unpacked) == new)
        #expect(try Data(contentsOf: patched) == new)

        // SIGKILL while a third release may be deriving: after the restart no temp is left and
        // its files are derived (again, if the kill came between rename and record).
        let third = fx.scratch.appendingPathComponent("third.bin")
        try SyntheticWeights.data(SyntheticWeights.fineTune(base, change: 1e-2, seed: 9) + SyntheticWeights.float32(256 * 1024, seed: 10)).write(to: third)
        let c = try #require(try fx.publish(third)["id"] as? String)
        try fx.server.kill()
        try fx.server.restart()
        #expect(try ModeldServer.eventually(within: 90) { try fx.curl("/latest?sdk=1.0").json?["packed"] != nil }, "\(fx.server.log)")
        let onDisk = try FileManager.default.contentsOfDirectory(atPath: fx.server.modelsDir.path)
        #expect(onDisk.contains("\(c).bin.pack") && onDisk.contains("\(c).bin.from-\(b).patch"), "\(onDisk)")
        #expect(fx.modelsEntries().tmp.isEmpty, "\(fx.modelsEntries().tmp)")

        // Retiring the base collects it (grace 0, at start-up) and with it the patches from it.
        #expect(try fx.modelctl(["retire", a]).status == 0)
        #expect(try fx.modelctl(["retire", b]).status == 0)
        fx.server.signal(SIGTERM)
        #expect(fx.server.waitForExit(within: 20) == 0)
        try fx.server.restart()
        #expect(try ModeldServer.eventually(within: 20) {
            let names = Set(try FileManager.default.contentsOfDirectory(atPath: fx.server.modelsDir.path))
            return !names.contains("\(b).bin.pack") && !names.contains("\(b).bin.from-\(a).patch") && !names.contains("\(c).bin.from-\(b).patch")
        })
        // The collector unlinks the files before its catalog write names them deleted, so the
        // pack answers 404 a moment before /latest stops naming the patch from b: wait for each.
        #expect(try ModeldServer.eventually(within: 20) { try fx.curl("/models/\(b).bin.pack").status == 404 })
        var after: [String: Any] = [:]
        #expect(try ModeldServer.eventually(within: 20) {
            after = try fx.curl("/latest?sdk=1.0").json ?? [:]
            return after["id"] as? String == c && (after["patches"] as? [Any])?.isEmpty == true && after["packed"] != nil
        }, "\(after)")
    }

    /// Without a server: `publish --models-dir` stays quick and `packs derive` does the pass.
    @Test func packsDerive_offline_derivesEachWaitingFileOnce_SPEC16() throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("packs-derive-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let models = scratch.appendingPathComponent("models").path
        func modelctl(_ arguments: [String]) throws -> ProcessResult {
            try ChildProcess.run(TestBinaries.modelctl, arguments, directory: scratch, timeout: .seconds(120))
        }
        let base = SyntheticWeights.float32(512 * 1024, seed: 3)
        var ids: [String] = []
        for (name, floats) in [("a.bin", base), ("b.bin", SyntheticWeights.fineTune(base, change: 1e-3, seed: 4))] {
            let url = scratch.appendingPathComponent(name)
            try SyntheticWeights.data(floats).write(to: url)
            let r = try modelctl(["publish", url.path, "--sdk-min", "1.0", "--models-dir", models, "--json"])
            #expect(r.status == 0 && !r.stdout.contains("packed"), "\(r.stderr)")
            ids.append(try #require((try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])?["id"] as? String))
        }
        let derived = try modelctl(["packs", "derive", "--models-dir", models, "--json"])
        #expect(derived.status == 0, "\(derived.stderr)")
        let files = try #require((try JSONSerialization.jsonObject(with: Data(derived.stdout.utf8)) as? [String: Any])?["files"] as? [[String: Any]])
        #expect(files.map { $0["id"] as? String } == [ids[1], ids[0]])   // newest first
        #expect((files[0]["patches"] as? [[String: Any]])?.first?["from"] as? String == ids[0])
        let entries = try FileManager.default.contentsOfDirectory(atPath: models)
        #expect(entries.contains("\(ids[1]).bin.pack") && entries.contains("\(ids[1]).bin.from-\(ids[0]).patch"), "\(entries)")
        let again = try modelctl(["packs", "derive", "--models-dir", models])
        #expect(again.status == 0 && again.stdout.contains("0 file(s) derived"), "\(again.stdout)")
    }
}

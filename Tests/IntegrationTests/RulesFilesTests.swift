import ChildProcesses
import Foundation
import ModeldSigning
import Testing

/// Rules snapshots and pointers (SPEC §9.2) through the real modeld, modelctl and curl: written
/// with every catalog change that changes a channel's rules and only then, served with the
/// /latest conduct (ETags, gzip, 304, immutable snapshots), written by a running server within
/// 2 s of an offline change, signed and re-signed with keys.
@Suite(.serialized) final class RulesFilesTests {
    private func pointer(_ fx: CatalogFixture, _ channel: String) throws -> [String: Any] {
        let r = try fx.curl("/rules/\(channel).sig.json")
        try #require(r.status == 200, "\(channel): \(r.status) \(r.text)")
        return try #require(r.json)
    }

    private func file(_ fx: CatalogFixture, _ relative: String) -> Data? {
        FileManager.default.contents(atPath: fx.server.modelsDir.appendingPathComponent("rules/" + relative).path)
    }

    @Test func publishWritesRules_servedWithETagsGzipAndCacheControl_unknownChannel404() throws {
        let fx = try CatalogFixture()
        let id = try #require(try fx.publish(try fx.randomFile(), sdkMin: "2.0", ["--rollout", "40"])["id"] as? String)
        let p = try pointer(fx, "stable")
        let version = try #require(p["catalog"] as? Int)
        #expect(p["kind"] as? String == "rules" && p["channel"] as? String == "stable" && p["file"] as? String == "stable/\(version).json")
        #expect((p["signatures"] as? [Any])?.isEmpty == true)   // no keys: unsigned, still written

        let pointerAnswer = try fx.curl("/rules/stable.sig.json")
        #expect(pointerAnswer.header("Cache-Control") == "public, max-age=60")
        #expect(pointerAnswer.header("Content-Type") == "application/json")
        let etag = try #require(pointerAnswer.header("ETag"))
        #expect(try fx.curl("/rules/stable.sig.json", ["-H", "If-None-Match: \(etag)"]).status == 304)

        let snapshot = try fx.curl("/rules/stable/\(version).json")
        #expect(snapshot.status == 200 && snapshot.header("Cache-Control") == "public, max-age=31536000, immutable")
        let doc = try #require(snapshot.json)
        #expect(doc["v"] as? Int == 1 && doc["channel"] as? String == "stable" && doc["catalog"] as? Int == version)
        let entry = try #require((doc["releases"] as? [[String: Any]])?.first)
        #expect(entry["id"] as? String == id && entry["rollout_percent"] as? Int == 40 && entry["seq"] != nil)
        // The §4.1 document's fields (with §14's chunks and §3.2's disk_bytes) plus seq, rollout_percent and variants (SPEC §9.2).
        #expect(Set(entry.keys) == ["url", "id", "sha256", "size", "chunks", "sdk_min", "channel", "label", "published_at", "disk_bytes",
                                    "seq", "rollout_percent", "variants"])
        // Identical bytes to the file on disk and to the pointer's size and sha256.
        #expect(snapshot.body == file(fx, "stable/\(version).json"))
        let sha = try SHA256Sum.of(snapshot.body)
        #expect(p["size"] as? Int == snapshot.body.count && p["sha256"] as? String == sha)

        // gzip when asked: its own ETag, the same JSON once inflated; HEAD has no body.
        let gz = try fx.curl("/rules/stable/\(version).json", ["--compressed"])
        #expect(gz.header("Content-Encoding") == "gzip" && gz.header("ETag") != snapshot.header("ETag") && gz.body == snapshot.body)
        let head = try fx.curl("/rules/stable.sig.json", ["-I"])
        #expect(head.status == 200 && head.header("Content-Length") == String(pointerAnswer.body.count))

        for path in ["/rules/nope.sig.json", "/rules/nope/1.json", "/rules/stable/999.json", "/rules/../catalog.json", "/rules/Stable.sig.json"] {
            let r = try fx.curl(path)
            #expect(r.status == 404 && r.json?["error"] as? String == "not_found", "\(path): \(r.status)")
        }
        #expect(try fx.curl("/rules/stable.sig.json", ["-X", "POST"]).status == 405)
    }

    @Test func onlyChangedChannelsGetNewFiles_pauseDropsTheRelease_SPEC9_2() throws {
        let fx = try CatalogFixture()
        let stable = try #require(try fx.publish(try fx.randomFile())["id"] as? String)
        let before = try #require(file(fx, "stable.sig.json"))
        let stableFile = try #require(try pointer(fx, "stable")["file"] as? String)

        _ = try fx.publish(try fx.randomFile(), ["--channel", "beta"])
        #expect(file(fx, "stable.sig.json") == before, "a beta publish rewrote stable's pointer")
        #expect(try pointer(fx, "beta")["catalog"] as? Int == (try fx.catalogOnDisk()["catalog_version"] as? Int))

        try #require(try fx.modelctl(["pause", stable]).status == 0)
        let paused = try pointer(fx, "stable")
        let pausedFile = try #require(paused["file"] as? String)
        #expect(pausedFile != stableFile)
        let doc = try #require(try fx.curl("/rules/\(pausedFile)").json)
        #expect((doc["releases"] as? [Any])?.isEmpty == true)
        // The superseded snapshot stays (retired_grace_days) for clients holding the old pointer.
        #expect(try fx.curl("/rules/\(stableFile)").status == 200)
    }

    @Test func runningServerWritesRulesWithin2sOfAnOfflineChange_SPEC9_2() throws {
        let fx = try CatalogFixture()
        let id = try #require(try fx.publish(try fx.randomFile())["id"] as? String)
        let first = try #require(try pointer(fx, "stable")["catalog"] as? Int)
        // Another publisher that writes no rules (an older modelctl): only catalog.json changes.
        var catalog = try fx.catalogOnDisk()
        var releases = try #require(catalog["releases"] as? [[String: Any]])
        releases[0]["rollout_percent"] = 25
        catalog["releases"] = releases
        catalog["catalog_version"] = first + 1
        try fx.replaceCatalogAtomically(try JSONSerialization.data(withJSONObject: catalog))
        let written = ModeldServer.eventually(within: 2.5) {
            (try? self.pointer(fx, "stable"))?["catalog"] as? Int == first + 1
        }
        #expect(written, "no rules written within 2 s of the offline change")
        let doc = try #require(try fx.curl("/rules/stable/\(first + 1).json").json)
        #expect(((doc["releases"] as? [[String: Any]])?.first?["rollout_percent"] as? Int) == 25)
        #expect(((doc["releases"] as? [[String: Any]])?.first?["id"] as? String) == id)
    }

    @Test func signedPointers_verify_andAreReSignedEveryResignSeconds() throws {
        let keys = try SigningFixture()
        defer { keys.remove() }
        try keys.generate("k1")
        let server = try keys.server(["k1"], resignSeconds: 1)
        let fx = try CatalogFixture(server: server)
        _ = try fx.publish(try fx.randomFile())
        let raw = try fx.curl("/rules/stable.sig.json")
        let signed = try SignedPointer.decode(Array(raw.body))
        #expect(signed.kind == .rules && signed.channel == "stable" && signed.signatures.count == 1)
        let snapshot = try fx.curl("/rules/\(signed.file)")
        #expect(try keys.trusted(["k1"]).verifyPointer(signed, snapshot: Array(snapshot.body), now: SigningFixture.now).count == 1)
        // Re-signed (new created) with the same snapshot, so a CDN never holds an expired pointer.
        let resigned = ModeldServer.eventually(within: 5) {
            guard let p = try? SignedPointer.decode(Array((try? fx.curl("/rules/stable.sig.json"))?.body ?? Data())) else { return false }
            return p.created > signed.created && p.file == signed.file
        }
        #expect(resigned)
    }

    @Test func offlinePublishWritesRules_withoutKeysUnsigned() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("rules-offline-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let models = dir.appendingPathComponent("models")
        let file = dir.appendingPathComponent("m.bin")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try Data(repeating: 7, count: 1000).write(to: file)
        for channel in ["stable", "beta"] {
            let r = try ChildProcess.run(TestBinaries.modelctl, ["publish", file.path, "--sdk-min", "1.0", "--channel", channel,
                                                                 "--models-dir", models.path], directory: dir)
            try #require(r.status == 0, "\(r.stderr)")
        }
        let stable = try #require(FileManager.default.contents(atPath: models.appendingPathComponent("rules/stable.sig.json").path))
        let pointer = try SignedPointer.decode(Array(stable))
        #expect(pointer.catalog == 1 && pointer.signatures.isEmpty)   // beta's publish (catalog 2) left stable alone
        #expect(FileManager.default.fileExists(atPath: models.appendingPathComponent("rules/beta/2.json").path))
    }

    /// SPEC §17.1: a change rewrites only the rules snapshots of the channels it changed — the
    /// other channels' pointers and snapshots are not even replaced (same inode, same mtime),
    /// through the running server (PATCH via modelctl) and offline (`--models-dir`).
    @Test func changeToOneChannel_rewritesOnlyThatChannelsRulesFiles_SPEC17_1() throws {
        let fx = try CatalogFixture()
        var ids: [String: String] = [:]
        for channel in ["ranker", "faces", "llm"] {
            ids[channel] = try #require(try fx.publish(try fx.randomFile(), ["--channel", channel])["id"] as? String)
        }
        let rules = fx.server.modelsDir.appendingPathComponent("rules")
        /// Every rules file of each channel, with its inode and mtime.
        func files() throws -> [String: [String: String]] {
            var result: [String: [String: String]] = [:]
            for channel in ["ranker", "faces", "llm"] {
                var entries: [String: String] = [:]
                let names = try FileManager.default.contentsOfDirectory(atPath: rules.appendingPathComponent(channel).path)
                for path in names.map({ "\(channel)/\($0)" }) + ["\(channel).sig.json"] {
                    var st = stat()
                    try #require(stat(rules.appendingPathComponent(path).path, &st) == 0)
                    entries[path] = "\(st.st_ino) \(st.st_mtim.tv_sec).\(st.st_mtim.tv_nsec)"
                }
                result[channel] = entries
            }
            return result
        }
        let before = try files()
        try #require(try fx.modelctl(["rollout", ids["faces"]!, "50"]).status == 0)
        let version = try #require(try fx.catalogOnDisk()["catalog_version"] as? Int)
        let afterServer = try files()
        #expect(afterServer["ranker"] == before["ranker"] && afterServer["llm"] == before["llm"])
        #expect(afterServer["faces"]?["faces/\(version).json"] != nil && afterServer["faces"]?["faces.sig.json"] != before["faces"]?["faces.sig.json"])
        let faces = try #require(try fx.curl("/rules/faces/\(version).json").json)
        #expect((faces["releases"] as? [[String: Any]])?.first?["rollout_percent"] as? Int == 50)

        // Offline, beside the running server: the same rule.
        let r = try ChildProcess.run(TestBinaries.modelctl, ["rollout", ids["llm"]!, "30", "--models-dir", fx.server.modelsDir.path],
                                     directory: fx.scratch)
        try #require(r.status == 0, "\(r.stderr)")
        let afterOffline = try files()
        #expect(afterOffline["ranker"] == before["ranker"] && afterOffline["faces"] == afterServer["faces"])
        #expect(afterOffline["llm"]?["llm/\(version + 1).json"] != nil)
    }
}

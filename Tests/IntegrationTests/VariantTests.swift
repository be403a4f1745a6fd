import ChildProcesses
import Foundation
import HTTPTestSupport
import ModeldSigning
import Testing

/// Device-class variants (SPEC §3.1, issue #14) through the real modeld, modelctl and curl.
@Suite(.serialized) final class VariantTests {
    /// `modelctl variant add --json` → the release it printed.
    private func addVariant(_ fx: CatalogFixture, _ id: String, _ file: URL, _ name: String, _ requires: String) throws -> [String: Any] {
        let r = try fx.modelctl(["variant", "add", id, file.path, "--name", name, "--requires", requires, "--json"])
        try #require(r.status == 0, "variant add failed: \(r.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
    }

    private func variants(_ release: [String: Any]) -> [String: [String: Any]] {
        var out: [String: [String: Any]] = [:]
        for v in release["variants"] as? [[String: Any]] ?? [] { out[v["name"] as? String ?? ""] = v }
        return out
    }

    @Test func threeVariants_answeredPerDeviceTable_filesServedRanged_SPEC3_1() throws {
        let fx = try CatalogFixture()
        let base = try fx.publish(try fx.randomFile("llm.gguf", size: 3000), ["--label", "family"])
        let id = try #require(base["id"] as? String)
        _ = try addVariant(fx, id, try fx.randomFile("8b.gguf", size: 8000), "large", "platform=ios|ipados,min_os=17.2,min_ram_mb=7000")
        _ = try addVariant(fx, id, try fx.randomFile("3b.gguf", size: 3500), "medium", "min_ram_mb=3500")
        let release = try addVariant(fx, id, try fx.randomFile("1b.gguf", size: 1000), "tablet", #"{"device_prefix":["iPad"]}"#)
        let v = variants(release)
        try #require(v.count == 3)

        let table: [(String, String?)] = [
            ("", nil),                                                  // no attributes: the default file
            ("&ram_mb=3499", nil), ("&ram_mb=3500", "medium"),          // boundary RAM
            ("&platform=ios&os=17.10&ram_mb=7000", "large"),            // 17.10 > 17.2 as versions
            ("&platform=ios&os=17.2.0&ram_mb=7000", "large"),
            ("&platform=ios&os=17.1.9&ram_mb=8000", "medium"),          // OS too old for large
            ("&platform=ipados&os=18&ram_mb=6999", "medium"),
            ("&platform=android&os=18&ram_mb=16000", "medium"),         // wrong platform
            ("&platform=ios&ram_mb=16000", "medium"),                   // os missing: min_os fails
            ("&device=iPad14,1", "tablet"), ("&device=iPad14,1&ram_mb=4000", "medium"),  // first match wins
            ("&device=iphone", nil),                                    // prefixes are case-sensitive
        ]
        for (query, expected) in table {
            let r = try fx.curl("/latest?sdk=1.0" + query)
            try #require(r.status == 200, "\(query): \(r.text)")
            let doc = try #require(r.json)
            #expect(doc["id"] as? String == id && doc["label"] as? String == "family", "\(query)")
            #expect(doc["variant"] as? String == expected, "\(query) → \(doc["variant"] ?? "default")")
            let source = expected.flatMap { v[$0] } ?? base
            #expect(doc["url"] as? String == source["url"] as? String, "\(query)")
            #expect(doc["sha256"] as? String == source["sha256"] as? String && doc["size"] as? Int == source["size"] as? Int, "\(query)")
            #expect(r.header("Cache-Control")?.hasPrefix("public") == true, "\(query)")
        }

        // The variant file: ranged, immutable, its own digest as ETag.
        let large = try #require(v["large"])
        let file = try #require(large["file"] as? String)
        let ranged = try fx.curl("/models/\(file)", ["-r", "100-199"])
        #expect(ranged.status == 206 && ranged.body.count == 100)
        #expect(ranged.header("ETag") == "\"\(large["sha256"] as? String ?? "")\"")
        #expect(ranged.header("Cache-Control") == "public, max-age=31536000, immutable")
        let whole = try fx.curl("/models/\(file)")
        #expect(try SHA256Sum.of(whole.body) == large["sha256"] as? String)

        // Bad attributes: 400 naming the parameter; the static file keeps default files only.
        for (query, name) in [("platform=iOS", "platform"), ("os=17.x", "os"), ("ram_mb=8GB", "ram_mb"), ("ram_mb=10000001", "ram_mb"), ("device=", "device")] {
            let r = try fx.curl("/latest?sdk=1.0&" + query)
            #expect(r.status == 400 && r.errorCode == "invalid_parameter" && r.text.contains(name), "\(query): \(r.text)")
        }
        let derived = try fx.curl("/latest_model_details.json?ram_mb=lots")
        #expect(derived.status == 400 && derived.text.contains("ram_mb"), "the derived file's form checks them too: \(derived.text)")
        let details = try String(contentsOf: fx.server.modelsDir.appendingPathComponent("latest_model_details.json"), encoding: .utf8)
        #expect(details.contains(base["url"] as? String ?? "?") && !details.contains(file))

        // `show` lists the variants; removing one stops answering it at once, its file stays served.
        let shown = try fx.modelctl(["show", id])
        #expect(shown.stdout.contains("variant large:") && shown.stdout.contains("min_ram_mb=7000"), "\(shown.stdout)")
        let removed = try fx.modelctl(["variant", "remove", id, "large", "--json"])
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(try fx.curl("/latest?sdk=1.0&platform=ios&os=18&ram_mb=8000").json?["variant"] as? String == "medium")
        #expect(try fx.curl("/models/\(file)", ["-I"]).status == 200)
        #expect(try fx.modelctl(["variant", "remove", id, "large"]).status == 1, "already removed: 404")
    }

    @Test func partialRolloutAndPause_pickAmongTheChosenReleasesVariants_SPEC3_1() throws {
        let fx = try CatalogFixture()
        let a = try #require(try fx.publish(try fx.randomFile("a.gguf"))["id"] as? String)
        let aBig = try #require(variants(try addVariant(fx, a, try fx.randomFile("a8.gguf"), "8gb", "min_ram_mb=7000"))["8gb"]?["url"] as? String)
        let b = try #require(try fx.publish(try fx.randomFile("b.gguf"), ["--rollout", "50"])["id"] as? String)
        let bBig = try #require(variants(try addVariant(fx, b, try fx.randomFile("b8.gguf"), "8gb", "min_ram_mb=7000"))["8gb"]?["url"] as? String)

        let clients = (0..<40).map { "device-\($0)" }
        let buckets = try RolloutOracle.buckets(releaseID: b, clientIDs: clients)
        let inside = try #require(clients.first { buckets[$0]! < 50 })
        let outside = try #require(clients.first { buckets[$0]! >= 50 })
        let ask = { (client: String) throws -> CurlResponse in try fx.curl("/latest?sdk=1.0&ram_mb=8000&client_id=\(client)") }
        #expect(try ask(inside).json?["url"] as? String == bBig)
        #expect(try ask(outside).json?["url"] as? String == aBig)
        #expect(try ask(inside).header("Cache-Control")?.hasPrefix("private") == true)

        // Pausing b: its rollout clients fall back to a's matching variant at once.
        #expect(try fx.modelctl(["pause", b]).status == 0)
        let fallback = try ask(inside).json
        #expect(fallback?["id"] as? String == a && fallback?["url"] as? String == aBig && fallback?["variant"] as? String == "8gb")
    }

    @Test func variantUpload_failuresKeepNothing_SPEC3_1() throws {
        let fx = try CatalogFixture(environment: ["MODELD_LIMITS_MAX_UPLOAD_BYTES": "5000"])
        let id = try #require(try fx.publish(try fx.randomFile(size: 100))["id"] as? String)
        let path = "/admin/models/\(id)/variants?name=small&requires=min_ram_mb%3D1000&ext=gguf"
        let before = fx.modelsEntries().models
        let catalogBefore = try Data(contentsOf: fx.server.modelsDir.appendingPathComponent("catalog.json"))
        let small = try fx.randomFile(size: 1000)

        // Expect: 100-continue with a length over the limit: the final 413 instead of 100 Continue.
        let raw = try RawClient(port: fx.server.port)
        try raw.send("POST \(path) HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(fx.server.token)\r\n"
            + "Content-Length: 6000\r\nExpect: 100-continue\r\n\r\n")
        #expect(try raw.readHead().status == 413)
        let tooBig = try fx.curl(path, fx.auth + ["-T", try fx.randomFile(size: 6000).path, "-X", "POST", "-H", "Transfer-Encoding: chunked"])
        #expect(tooBig.status == 413 && tooBig.errorCode == "body_too_large", "\(tooBig.text)")
        let wrong = try fx.curl(path, fx.auth + ["-T", small.path, "-X", "POST", "-H", "X-Model-SHA256: \(String(repeating: "0", count: 64))"])
        #expect(wrong.status == 422 && wrong.errorCode == "sha256_mismatch", "\(wrong.text)")
        let cases: [(String, Int, String, String)] = [
            ("/admin/models/\(UUID().uuidString.lowercased())/variants?name=x&requires=platform%3Dios&ext=gguf", 404, "not_found", "no release"),
            ("/admin/models/\(id)/variants?name=x&requires=colour%3Dred&ext=gguf", 400, "invalid_parameter", "requires.colour"),
            ("/admin/models/\(id)/variants?name=Big&requires=platform%3Dios&ext=gguf", 400, "invalid_parameter", "name"),
            ("/admin/models/\(id)/variants?name=x&requires=platform%3Dios&ext=gguf&sdk_min=1", 400, "invalid_parameter", "sdk_min"),
        ]
        for (p, status, code, names) in cases {
            let r = try fx.curl(p, fx.auth + ["--data-binary", "@\(small.path)"])
            #expect(r.status == status && r.errorCode == code && r.text.contains(names), "\(p): \(r.status) \(r.text)")
        }
        let after = fx.modelsEntries()
        #expect(after.tmp.isEmpty && after.models == before, "nothing kept: \(after)")
        #expect(try Data(contentsOf: fx.server.modelsDir.appendingPathComponent("catalog.json")) == catalogBefore)

        let ok = try fx.curl(path, fx.auth + ["-T", small.path, "-X", "POST", "-H", "X-Model-SHA256: \(try SHA256Sum.of(small))"])
        #expect(ok.status == 201 && ok.header("Location") == "/admin/models/\(id)", "\(ok.text)")
        let dup = try fx.curl(path, fx.auth + ["--data-binary", "@\(small.path)"])
        #expect(dup.status == 409 && dup.errorCode == "id_in_use")
        #expect(try fx.modelctl(["retire", id]).status == 0)
        let retired = try fx.curl(path.replacingOccurrences(of: "name=small", with: "name=other"), fx.auth + ["--data-binary", "@\(small.path)"])
        #expect(retired.status == 409 && retired.errorCode == "retired")
    }

    @Test func offlineAdd_verify_andGCOfRemovedVariantFiles_SPEC3_1() throws {
        let fx = try CatalogFixture(environment: ["MODELD_RETIRED_GRACE_DAYS": "0"])
        let models = fx.server.modelsDir.path
        let offline = { (args: [String]) throws -> ProcessResult in
            try ChildProcess.run(TestBinaries.modelctl, args + ["--models-dir", models], directory: fx.scratch)
        }
        let id = try #require(try fx.publish(try fx.randomFile())["id"] as? String)
        let added = try offline(["variant", "add", id, try fx.randomFile("v.gguf").path, "--name", "big", "--requires", "min_ram_mb=7000", "--json"])
        try #require(added.status == 0, "\(added.stderr)")
        let release = try #require(try JSONSerialization.jsonObject(with: Data(added.stdout.utf8)) as? [String: Any])
        let file = try #require(variants(release)["big"]?["file"] as? String)
        #expect(try ModeldServer.eventually(within: 5) { try fx.curl("/latest?sdk=1.0&ram_mb=7000").json?["variant"] as? String == "big" })

        // verify re-hashes variant files too.
        #expect(try offline(["verify"]).status == 0)
        let handle = try #require(FileHandle(forWritingAtPath: models + "/" + file))
        handle.seek(toFileOffset: 10); handle.write(Data([0x55, 0xAA])); handle.closeFile()
        let bad = try offline(["verify"])
        #expect(bad.status == 1 && bad.stdout.contains(file) || bad.stderr.contains(file), "\(bad.stdout) \(bad.stderr)")

        // Removed with a 0-day grace: the next collection (start-up) deletes the file and marks it.
        #expect(try offline(["variant", "remove", id, "big"]).status == 0)
        fx.server.signal(SIGTERM)
        try #require(fx.server.waitForExit(within: 15) != nil)
        try fx.server.restart()
        #expect(ModeldServer.eventually(within: 10) { !FileManager.default.fileExists(atPath: models + "/" + file) })
        #expect(try ModeldServer.eventually(within: 5) { try fx.curl("/models/\(file)").status == 404 })
        // The catalog is written after the unlink (CatalogStore.collectGarbage), so the mark
        // may land a moment after the file is gone.
        let marked = { () throws -> Bool in
            let entry = (try fx.catalogOnDisk()["releases"] as? [[String: Any]])?.first { $0["id"] as? String == id }
            return entry.map { self.variants($0)["big"]?["file_deleted_at"] != nil && self.variants($0)["big"]?["removed_at"] != nil } ?? false
        }
        #expect(try ModeldServer.eventually(within: 10, marked))
        #expect(try fx.curl("/latest?sdk=1.0&ram_mb=7000").json?["variant"] == nil)
    }

    @Test func costRolloutWithDeviceMix_andCLIUsageErrors_SPEC3_1() throws {
        let fx = try CatalogFixture()
        let id = try #require(try fx.publish(try fx.randomFile("d.gguf", size: 1000))["id"] as? String)
        _ = try addVariant(fx, id, try fx.randomFile("v.gguf", size: 9000), "8gb", "min_ram_mb=7000")

        let priced = try fx.modelctl(["cost", "rollout", id, "--installs", "100", "--mix", "8gb=0.5", "--json"])
        try #require(priced.status == 0, "\(priced.stderr)")
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(priced.stdout.utf8)) as? [String: Any])
        #expect((doc["release"] as? [String: Any])?["size"] as? Int == 5000, "half the installs get 9000 bytes, half 1000")
        let text = try fx.modelctl(["cost", "rollout", id, "--installs", "100", "--mix", "8gb=0.5"])
        #expect(text.stdout.contains("5,000 bytes per download (device mix)"), "\(text.stdout)")
        let plain = try fx.modelctl(["cost", "rollout", id, "--installs", "100", "--json"])
        #expect(plain.stdout.contains("\"size\":1000"))

        let unknown = try fx.modelctl(["cost", "rollout", id, "--installs", "100", "--mix", "4gb=0.5"])
        #expect(unknown.status == 1 && unknown.stderr.contains("4gb") && unknown.stderr.contains("8gb"), "\(unknown.stderr)")
        let overfull = try fx.modelctl(["cost", "rollout", id, "--installs", "100", "--mix", "8gb=0.7,x=0.4"])
        #expect(overfull.status == 2 && overfull.stderr.contains("more than 1"), "\(overfull.stderr)")

        // Usage errors name the problem and exit 2 before anything is sent.
        let file = try fx.randomFile("w.gguf").path
        for (args, needle) in [
            (["--name", "x", "--requires", "colour=red"], "requires.colour"),
            (["--name", "Big", "--requires", "platform=ios"], "name"),
            (["--name", "x", "--requires", ""], "requires"),
        ] {
            let r = try fx.modelctl(["variant", "add", id, file] + args)
            #expect(r.status == 2 && r.stderr.contains(needle), "\(args): \(r.status) \(r.stderr)")
        }
        #expect(try fx.modelctl(["variant", "remove", id, "nope"]).status == 1)
    }

    @Test func variantAnswers_areSignedLikeReleaseAnswers_SPEC12() throws {
        let keys = try SigningFixture(); defer { keys.remove() }
        try keys.generate("a")
        let server = try keys.server(["a"])
        let ctl = { (args: [String]) throws -> ProcessResult in
            try ChildProcess.run(TestBinaries.modelctl, args + ["--server", server.url, "--token", server.token])
        }
        let file = server.root.appendingPathComponent("big.gguf")
        try Data(repeating: 7, count: 4096).write(to: file)
        let published = try ctl(["publish", file.path, "--sdk-min", "50", "--json"])
        let id = try #require((try JSONSerialization.jsonObject(with: Data(published.stdout.utf8)) as? [String: Any])?["id"] as? String)
        #expect(try ctl(["variant", "add", id, file.path, "--name", "8gb", "--requires", "min_ram_mb=7000"]).status == 0)

        let verifier = try keys.trusted(["a"])
        let plain = try Curl.run(["\(server.url)/latest?sdk=50"])
        let variant = try Curl.run(["\(server.url)/latest?sdk=50&ram_mb=8000"])
        #expect(variant.json?["variant"] as? String == "8gb" && plain.json?["variant"] == nil)
        #expect(try SigningFixture.verify(variant, identity: variant.body, with: verifier).count == 1)
        #expect(try SigningFixture.verify(plain, identity: plain.body, with: verifier).count == 1)
        // Each body has its own signature: the variant's does not vouch for the default answer.
        #expect(throws: SignatureVerifier.Failure.self) { try SigningFixture.verify(variant, identity: plain.body, with: verifier) }
    }
}

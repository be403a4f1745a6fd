import ChildProcesses
import Foundation
import Testing

/// Adapters pinned to a base and what a device knows before a download (SPEC §3.2), through
/// the real modeld, modelctl, curl and modeld-client: a base in `llm`, two adapters in
/// `llm-lora` pinned to two base SHA-256s and a plain one; each device gets the adapter for the
/// base it has, the same through `/latest?base=` and rules mode.
@Suite(.serialized) final class AdapterTests {
    private func modelctl(_ fx: ClientFixture, _ arguments: [String]) throws -> ProcessResult {
        try ChildProcess.run(TestBinaries.modelctl, arguments + ["--server", fx.server.url, "--token", fx.server.token])
    }

    private func publish(_ fx: ClientFixture, size: Int, channel: String, _ extra: [String]) throws -> [String: Any] {
        let file = fx.scratch.appendingPathComponent("\(UUID().uuidString.prefix(8)).gguf")
        try Data((0..<size).map { _ in UInt8.random(in: 0...255) }).write(to: file)
        let r = try modelctl(fx, ["publish", file.path, "--sdk-min", "2.0", "--channel", channel, "--json"] + extra)
        try #require(r.status == 0, "publish: \(r.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
    }

    private func latest(_ fx: ClientFixture, _ query: String) throws -> CurlResponse {
        try Curl.run(["\(fx.server.url)/latest?sdk=2.3&\(query)"])
    }

    @Test func eachBaseGetsItsAdapter_throughLatestAndRules_SPEC3_2() throws {
        let fx = try ClientFixture()
        let baseA = try publish(fx, size: 3000, channel: "llm", ["--display-name", "Llama A", "--license-spdx", "LLAMA-3.2",
                                                                  "--license-url", "https://example.com/l.txt", "--min-ram-mb", "2048"])
        let plain = try publish(fx, size: 100, channel: "llm-lora", [])
        let adapterA = try publish(fx, size: 200, channel: "llm-lora", ["--base-release", baseA["id"] as! String])
        let baseB = try publish(fx, size: 3100, channel: "llm", [])
        let adapterB = try publish(fx, size: 300, channel: "llm-lora",
                                   ["--base-channel", "llm", "--base-sha256", baseB["sha256"] as! String])
        #expect((adapterA["base"] as? [String: String]) == ["channel": "llm", "sha256": baseA["sha256"] as! String])

        // /latest: the reported base picks the adapter; none, or an unknown one, falls through.
        for (query, expected) in [("base=\(baseA["sha256"]!)", adapterA), ("base=\(baseB["sha256"]!)", adapterB),
                                  ("base=\(String(repeating: "0", count: 64))", plain), ("x=1", plain)] {
            let r = try latest(fx, "channel=llm-lora&\(query)")
            #expect(r.status == 200 && r.json?["id"] as? String == expected["id"] as? String, "\(query): \(r.text)")
        }
        let a = try #require(try latest(fx, "channel=llm-lora&base=\(baseA["sha256"]!)").json)
        #expect((a["base"] as? [String: String])?["sha256"] == baseA["sha256"] as? String)
        let llm = try #require(try latest(fx, "channel=llm").json)
        #expect(llm["id"] as? String == baseB["id"] as? String && llm["disk_bytes"] as? Int == 3100)
        let bad = try latest(fx, "channel=llm-lora&base=ABC")
        #expect(bad.status == 400 && bad.errorCode == "invalid_parameter" && bad.text.contains("base"), "\(bad.text)")

        // Rules mode and server mode: the client's own installed base of `llm` decides.
        func device(_ name: String, base: Bool, pauseB: Bool) throws -> (rules: String?, server: String?) {
            let cache = fx.scratch.appendingPathComponent("cache-\(name)")
            if pauseB { try #require(try modelctl(fx, ["pause", baseB["id"] as! String]).status == 0) }
            defer { if pauseB { _ = try? modelctl(fx, ["resume", baseB["id"] as! String]) } }
            if base {
                let u = try ChildProcess.run(TestBinaries.modeldClient, ["--rules", fx.proxy.url, "--sdk", "2.3", "--cache", cache.path,
                                                                         "--channel", "llm", "--json", "update"])
                try #require(u.status == 0, "\(u.stderr)")
            }
            // Server mode first (`check` prints what it would install), then rules mode installs it.
            let server = try fx.client(["--channel", "llm-lora", "--base-channel", "llm", "check"], cache: cache)
            try #require(server.status == 0, "\(server.stderr)")
            let rules = try ChildProcess.run(TestBinaries.modeldClient, ["--rules", fx.proxy.url, "--sdk", "2.3", "--cache", cache.path,
                                                                         "--channel", "llm-lora", "--json", "update"])
            try #require(rules.status == 0, "\(rules.stderr)")
            let active = try fx.json(rules)["active"] as? [String: Any]
            if base {  // status shows the pairing: the adapter names the base it applies on
                #expect((active?["base"] as? [String: String])?["channel"] == "llm", "\(String(describing: active))")
            }
            let available = server.stdout.split(separator: " ").dropFirst().first.map(String.init)
            return (active?["id"] as? String, server.stdout.hasPrefix("available: ") ? available : nil)
        }
        let withB = try device("b", base: true, pauseB: false)
        #expect(withB.rules == adapterB["id"] as? String && withB.server == adapterB["id"] as? String, "\(withB)")
        let withA = try device("a", base: true, pauseB: true)
        #expect(withA.rules == adapterA["id"] as? String && withA.server == adapterA["id"] as? String, "\(withA)")
        let without = try device("none", base: false, pauseB: false)
        #expect(without.rules == plain["id"] as? String && without.server == plain["id"] as? String, "\(without)")
    }

    @Test func systemModelVariants_andBadValuesKeepNothing_SPEC3_2() throws {
        let fx = try ClientFixture()
        let fm = try publish(fx, size: 100, channel: "fm-adapter", [])
        let id = fm["id"] as! String
        for (name, version) in [("fm-26-1", "26.1"), ("fm-26-2", "26.2")] {
            let file = fx.scratch.appendingPathComponent("\(name).fmadapter")
            try Data(name.utf8).write(to: file)
            let v = try modelctl(fx, ["variant", "add", id, file.path, "--name", name, "--requires", "system_model=\(version)"])
            try #require(v.status == 0, "\(v.stderr)")
        }
        for (version, expected) in [("26.1", "fm-26-1"), ("26.2", "fm-26-2"), ("26.3", nil)] {
            let r = try #require(try latest(fx, "channel=fm-adapter&system_model=\(version)").json)
            #expect(r["variant"] as? String == expected, "\(version): \(r)")
        }
        let badModel = try latest(fx, "channel=fm-adapter&system_model=26%201")
        #expect(badModel.status == 400 && badModel.text.contains("system_model"), "\(badModel.text)")

        // Bad values: 400 naming the field, nothing kept.
        let before = try Curl.run(["-H", "Authorization: Bearer \(fx.server.token)", "\(fx.server.url)/admin/models"]).text
        let file = fx.scratch.appendingPathComponent("x.gguf")
        try Data("x".utf8).write(to: file)
        for (query, field) in [("base_channel=llm&base_sha256=XYZ", "base_sha256"), ("base_sha256=\(String(repeating: "a", count: 64))", "base_channel"),
                               ("license_url=ftp://x/y", "license_url"), ("license_spdx=a%20b", "license_spdx"),
                               ("display_name=\(String(repeating: "n", count: 101))", "display_name")] {
            let r = try Curl.run(["-X", "POST", "-H", "Authorization: Bearer \(fx.server.token)", "--data-binary", "@\(file.path)",
                                  "\(fx.server.url)/admin/models?sdk_min=1&ext=gguf&\(query)"])
            #expect(r.status == 400 && r.errorCode == "invalid_parameter" && r.text.contains(field), "\(query): \(r.status) \(r.text)")
        }
        let bad = try ChildProcess.run(TestBinaries.modelctl, ["publish", file.path, "--sdk-min", "1", "--license-sha256", "0f",
                                                               "--server", fx.server.url, "--token", fx.server.token])
        #expect(bad.status == 2 && bad.stderr.contains("--license-sha256"), "\(bad.stderr)")
        #expect(try Curl.run(["-H", "Authorization: Bearer \(fx.server.token)", "\(fx.server.url)/admin/models"]).text == before)

        // PATCH base: while the release served nobody (published at 0 %), not after.
        let quiet = try publish(fx, size: 50, channel: "llm-lora", ["--rollout", "0"])
        let sha = String(repeating: "b", count: 64)
        func patch(_ id: String, _ body: String) throws -> CurlResponse {
            try Curl.run(["-X", "PATCH", "-H", "Authorization: Bearer \(fx.server.token)", "-H", "Content-Type: application/json",
                          "--data-binary", body, "\(fx.server.url)/admin/models/\(id)"])
        }
        let ok = try patch(quiet["id"] as! String, #"{"base":{"channel":"llm","sha256":"\#(sha)"}}"#)
        #expect(ok.status == 200 && (ok.json?["base"] as? [String: String])?["sha256"] == sha, "\(ok.text)")
        #expect(try patch(quiet["id"] as! String, #"{"rollout_percent":10}"#).status == 200)
        let late = try patch(quiet["id"] as! String, #"{"base":null}"#)
        #expect(late.status == 400 && late.text.contains("base"), "\(late.text)")
        let badBase = try patch(quiet["id"] as! String, #"{"base":{"channel":"llm","sha256":"x"}}"#)
        #expect(badBase.status == 400 && badBase.text.contains("base.sha256"), "\(badBase.text)")
    }

    /// Needs root for a small tmpfs as the cache (skipped otherwise): a zip whose size + 10 %
    /// fits but whose disk_bytes (file + unpacked) does not is refused before any byte moves.
    @Test(.enabled(if: getuid() == 0)) func diskBytesBeyondFreeSpace_isInsufficientStorage_beforeAnyByte_SPEC3_2() throws {
        let fx0 = try ClientFixture()
        let cache = try fx0.smallVolume(megabytes: 4)
        defer { fx0.unmount(cache) }
        let zip = try fx0.publish(size: 5 << 19, ext: "mlmodelc.zip")   // 2.5 MiB: + 10 % fits, × 2 does not
        let doc = try #require(try Curl.run(["\(fx0.server.url)/latest?sdk=2.3"]).json)
        #expect(doc["disk_bytes"] as? Int == 5 << 20)
        let full = try fx0.client(["--json", "update"], cache: cache)
        #expect(full.status == 1 && full.stderr.contains("insufficient_storage"), "\(full.stderr)")
        #expect(fx0.modelRequests(zip.id).isEmpty)
    }
}

extension AdapterTests {
    /// SPEC §3.2: installing an adapter leaves its base installed; a new base makes the old
    /// base's adapter inactive, and the next check, reporting the new base, installs its adapter.
    @Test func newBaseRetiresTheOldAdapter_andTheNextUpdateGetsItsOwn_SPEC3_2() throws {
        let fx = try ClientFixture()
        let baseA = try publish(fx, size: 3000, channel: "llm", [])
        let adapterA = try publish(fx, size: 200, channel: "llm-lora", ["--base-release", baseA["id"] as! String])
        let baseB = try publish(fx, size: 3100, channel: "llm", ["--rollout", "0"])
        let adapterB = try publish(fx, size: 300, channel: "llm-lora", ["--base-release", baseB["id"] as! String])
        func run(_ channel: String, _ command: String) throws -> [String: Any] {
            let r = try ChildProcess.run(TestBinaries.modeldClient, ["--rules", fx.proxy.url, "--sdk", "2.3", "--cache", fx.cache.path,
                                                                     "--channel", channel, "--json", command])
            try #require(r.status == 0, "\(channel) \(command): \(r.stderr)")
            return try fx.json(r)
        }
        func active(_ j: [String: Any]) -> String? { (j["active"] as? [String: Any])?["id"] as? String }
        #expect(active(try run("llm", "update")) == baseA["id"] as? String)
        #expect(active(try run("llm-lora", "update")) == adapterA["id"] as? String)
        #expect(active(try run("llm", "status")) == baseA["id"] as? String)   // the adapter evicted nothing
        try #require(try modelctl(fx, ["rollout", baseB["id"] as! String, "100"]).status == 0)
        #expect(active(try run("llm", "update")) == baseB["id"] as? String)
        let stale = try run("llm-lora", "status")
        #expect(stale["state"] as? String == "none" && active(stale) == nil, "\(stale)")
        let next = try run("llm-lora", "update")
        #expect(active(next) == adapterB["id"] as? String, "\(next)")
        #expect(((next["active"] as? [String: Any])?["base"] as? [String: String])?["sha256"] == baseB["sha256"] as? String)

        // Adapters go with their base: base A is still llm's previous model, so adapter A stays;
        // once base C's install deletes base A, llm-lora's next update deletes adapter A.
        let lora = fx.cache.appendingPathComponent("channels/llm-lora/models")
        let base = fx.cache.appendingPathComponent("channels/llm/models")
        func held(_ dir: URL, _ release: [String: Any]) -> Bool { FileManager.default.fileExists(atPath: dir.appendingPathComponent(release["id"] as! String).path) }
        #expect(held(lora, adapterA) && held(base, baseA))
        let paired = try run("llm-lora", "status")
        #expect(((paired["active"] as? [String: Any])?["base"] as? [String: String]) == ["channel": "llm", "sha256": baseB["sha256"] as! String], "\(paired)")
        let baseC = try publish(fx, size: 3200, channel: "llm", [])
        #expect(active(try run("llm", "update")) == baseC["id"] as? String)
        #expect(!held(base, baseA) && held(base, baseB))
        let after = try run("llm-lora", "update")
        #expect(!held(lora, adapterA), "adapter A outlived its base")
        #expect(held(lora, adapterB), "base B is still held (llm's previous), so is its adapter")
        #expect(active(after) == nil && after["state"] as? String == "no_model", "\(after)")   // no adapter for C yet
    }
}

extension AdapterTests {
    /// A zip's `disk_bytes` counts its exact unpacked size, read from its central directory at
    /// publish (server, offline and variant add): the file kept beside its unpacked tree. A
    /// file named .zip that is none still publishes, with the estimate (the zip's own size).
    @Test func zipDiskBytes_countTheExactUnpackedSize_SPEC3_2() throws {
        let fx = try ClientFixture()
        func zip(_ name: String, bytes: Int) throws -> URL {
            let file = fx.scratch.appendingPathComponent("\(UUID().uuidString.prefix(8))-\(name).mlmodelc.zip")
            // A tenth random: unpacked ≈ 10 × zipped, inside the client's 20× bomb limit.
            let script = "import os, sys, zipfile\nz = zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED)\n"
                + "z.writestr('model.mlmodelc/weights.bin', os.urandom(\(bytes / 10)) + b'w' * \(bytes - bytes / 10))\n"
                + "z.writestr('model.mlmodelc/meta.json', b'{}')\nz.close()\n"
            let r = try ChildProcess.run(URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", script, file.path])
            try #require(r.status == 0, "\(r.stderr)")
            return file
        }
        func size(_ url: URL) throws -> Int { try #require(try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) }
        func json(_ r: ProcessResult) throws -> [String: Any] {
            try #require(r.status == 0, "\(r.stderr)")
            return try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        }

        let main = try zip("main", bytes: 2_000_000)
        let release = try fx.publish(file: main)
        let zipped = try size(main)
        #expect(zipped < 300_000)
        let doc = try #require(try latest(fx, "x=1").json)
        #expect(doc["id"] as? String == release.id && doc["disk_bytes"] as? Int == zipped + 2_000_002, "\(doc)")
        let admin = try json(try modelctl(fx, ["show", release.id, "--json"]))
        #expect(admin["unpacked_size"] as? Int == 2_000_002, "\(admin)")

        let small = try zip("small", bytes: 500_000)
        _ = try json(try modelctl(fx, ["variant", "add", release.id, small.path, "--name", "small", "--requires", "min_ram_mb=1", "--json"]))
        let variant = try #require(try latest(fx, "ram_mb=512").json)
        let smallZipped = try size(small)
        #expect(variant["variant"] as? String == "small" && variant["disk_bytes"] as? Int == smallZipped + 500_002, "\(variant)")

        let junk = fx.scratch.appendingPathComponent("junk.mlmodelc.zip")
        try Data(repeating: 7, count: 4000).write(to: junk)
        let notZip = try fx.publish(file: junk, sdkMin: "3.0")
        let junkDoc = try #require(try Curl.run(["\(fx.server.url)/latest?sdk=3.1"]).json)
        #expect(junkDoc["id"] as? String == notZip.id && junkDoc["disk_bytes"] as? Int == 8000, "\(junkDoc)")

        // Offline publish records it in catalog.json too.
        let models = fx.scratch.appendingPathComponent("offline-models")
        try FileManager.default.createDirectory(at: models, withIntermediateDirectories: true)
        let offline = try json(try ChildProcess.run(TestBinaries.modelctl, ["publish", main.path, "--sdk-min", "2.0", "--models-dir", models.path, "--json"]))
        #expect(offline["unpacked_size"] as? Int == 2_000_002, "\(offline)")
        let catalog = try String(contentsOf: models.appendingPathComponent("catalog.json"), encoding: .utf8)
        #expect(catalog.contains(#""unpacked_size":2000002"#), "\(catalog)")
    }
}

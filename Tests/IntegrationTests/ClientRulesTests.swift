import ChildProcesses
import Foundation
@testable import ModeldClient
import Testing

/// `modeld-client --rules URL` and `--events URL` (SPEC §9.2) with the real binaries: the
/// device installs exactly what /latest answers for the same inputs, reading only rules/ and
/// models/ (the proxy sees no /latest), sends its events to an ingest-only modeld, and keeps a
/// bounded queue whose drops `status --json` reports.
@Suite(.serialized) final class ClientRulesTests {
    private func rulesClient(_ fx: ClientFixture, _ arguments: [String], cache: URL? = nil) throws -> ProcessResult {
        try ChildProcess.run(TestBinaries.modeldClient, ["--rules", fx.proxy.url, "--sdk", "2.3", "--cache", (cache ?? fx.cache).path] + arguments)
    }

    @Test func updateFromRules_installsWhatLatestAnswers_variantsAndRollout() throws {
        let fx = try ClientFixture()
        let base = try fx.publish(size: 3000)
        let partial = try fx.publish(size: 2000)
        let r = try ChildProcess.run(TestBinaries.modelctl, ["rollout", partial.id, "50", "--server", fx.server.url, "--token", fx.server.token])
        try #require(r.status == 0, "\(r.stderr)")
        let variantFile = fx.scratch.appendingPathComponent("v.bin")
        try Data(repeating: 9, count: 1234).write(to: variantFile)
        for id in [base.id, partial.id] {
            let v = try ChildProcess.run(TestBinaries.modelctl, ["variant", "add", id, variantFile.path, "--name", "big",
                                                                 "--requires", "min_ram_mb=8000", "--server", fx.server.url, "--token", fx.server.token])
            try #require(v.status == 0, "\(v.stderr)")
        }
        for (n, ram) in [(0, "4096"), (1, "8192"), (2, "16000"), (3, "100")] {
            for client in (0..<4).map({ "rules-\(n)-\($0)" }) {
                let cache = fx.scratch.appendingPathComponent("cache-\(client)")
                let latest = try Curl.run(["\(fx.server.url)/latest?sdk=2.3&channel=stable&client_id=\(client)&ram_mb=\(ram)"])
                let expected = try #require(latest.json)
                let update = try rulesClient(fx, ["--client-id", client, "--ram-mb", ram, "--json", "update"], cache: cache)
                try #require(update.status == 0, "\(update.stderr)")
                let active = try #require(try fx.json(update)["active"] as? [String: Any])
                #expect(active["id"] as? String == expected["id"] as? String, "\(client) ram \(ram)")
                #expect(active["sha256"] as? String == expected["sha256"] as? String, "\(client) ram \(ram)")
            }
        }
        #expect(fx.latestRequests.isEmpty, "rules mode asked /latest")
        #expect(fx.proxy.seen.contains { $0.target == "/rules/stable.sig.json" })
    }

    /// A check whose snapshot did not change revalidates the pointer (304) and only evaluates:
    /// the snapshot is decoded once per verified snapshot, not once per check, and again only
    /// when a catalog change names a new one. (The library in this process, against modeld.)
    @Test func rulesChecks_decodeEachSnapshotOnce_untilANewOneIsPublished() async throws {
        let fx = try ClientFixture()
        let first = try fx.publish(size: 1000)
        let client = try ModelChannel(ModeldConfiguration(source: .rules(URL(string: fx.proxy.url)!), sdkVersion: "2.3", cacheDirectory: fx.cache).allowingUnsigned())
        let checks = 50
        let started = Date()
        for _ in 0..<checks { #expect(try await client.check().release?.id == first.id) }
        let perCheck = Date().timeIntervalSince(started) / Double(checks)
        #expect(await client.rulesSnapshotDecodes == 1)
        let pointers = fx.proxy.seen.filter { $0.target == "/rules/stable.sig.json" }
        #expect(pointers.count == checks && fx.proxy.seen.filter { $0.target.hasPrefix("/rules/stable/") }.count == 1)
        #expect(fx.proxy.responses.filter { $0.target == "/rules/stable.sig.json" && $0.head.hasPrefix("HTTP/1.1 304") }.count == checks - 1)

        let second = try fx.publish(size: 2000)
        #expect(try await client.check().release?.id == second.id)
        #expect(try await client.check().release?.id == second.id)
        #expect(await client.rulesSnapshotDecodes == 2)
        print("rules check on an unchanged snapshot: \(String(format: "%.2f", perCheck * 1000)) ms (a 304 through the proxy, verify, evaluate)")
    }

    @Test func checkRejectsTamperedAndMissingRules_andBadFlagsAreUsageErrors() throws {
        let fx = try ClientFixture()
        _ = try fx.publish(size: 1000)
        let ok = try rulesClient(fx, ["--json", "check"])
        #expect(ok.status == 0, "\(ok.stderr)")
        #expect(try fx.json(ok)["state"] as? String == "available")
        let other = try rulesClient(fx, ["--channel", "beta", "check"], cache: fx.scratch.appendingPathComponent("beta"))
        #expect(other.status == 1, "\(other.stderr)")

        // A snapshot whose bytes no longer match the pointer is refused; the model stays.
        let pointer = try #require(try Curl.run(["\(fx.server.url)/rules/stable.sig.json"]).json)
        let snapshot = fx.server.modelsDir.appendingPathComponent("rules/" + (pointer["file"] as! String))
        var bytes = try Data(contentsOf: snapshot)
        bytes[bytes.count - 3] = UInt8(ascii: " ")
        try bytes.write(to: snapshot)
        let tampered = try rulesClient(fx, ["--json", "check"], cache: fx.scratch.appendingPathComponent("fresh"))
        #expect(tampered.status == 1, "\(tampered.stdout)")
        #expect(try fx.json(tampered)["state"] as? String == "rejected")

        for bad in [["--rules", "ftp://x"], ["--events", "nope"], ["--ram-mb", "-1"], ["--os", "1.x"], ["--platform", "iOS"]] {
            let args = bad.first == "--rules" ? bad + ["--sdk", "2.3", "--cache", fx.cache.path, "check"]
                : ["--rules", fx.proxy.url, "--sdk", "2.3", "--cache", fx.cache.path] + bad + ["check"]
            let r = try ChildProcess.run(TestBinaries.modeldClient, args)
            #expect(r.status == 2, "\(bad): \(r.status) \(r.stderr)")
        }
        let both = try ChildProcess.run(TestBinaries.modeldClient, ["--rules", fx.proxy.url, "--server", fx.proxy.url, "--sdk", "2.3",
                                                                    "--cache", fx.cache.path, "check"])
        #expect(both.status == 2)
    }

    @Test func eventsGoToAnIngestServer_andTheQueueIsBounded_SPEC9_2() throws {
        let fx = try ClientFixture()
        _ = try fx.publish(size: 1000)
        let ingest = try ModeldServer(empty: true)
        let events = ["--events", ingest.url]
        for i in 0..<3 { #expect(try rulesClient(fx, events + ["record", "--name", "e\(i)", "--outcome", "ok"]).status == 0) }
        let check = try rulesClient(fx, events + ["check"])
        #expect(check.status == 0, "\(check.stderr)")
        let status = try fx.json(try rulesClient(fx, ["--json", "status"]))
        #expect((status["events"] as? [String: Int]) == ["pending": 0, "dropped": 0], "\(status)")
        let stored = ModeldServer.eventually(within: 10) {
            let files = FileManager.default.enumerator(atPath: ingest.dataDir.appendingPathComponent("events").path)?.allObjects as? [String] ?? []
            let text = files.filter { $0.hasSuffix(".jsonl") }.compactMap {
                try? String(contentsOf: ingest.dataDir.appendingPathComponent("events/" + $0), encoding: .utf8)
            }.joined()
            return ["\"e0\"", "\"e1\"", "\"e2\""].allSatisfy(text.contains)
        }
        #expect(stored, "the ingest server did not store the events")

        // Without an events URL they stay queued, at most --max-queued-events, oldest batches dropped.
        let bounded = fx.scratch.appendingPathComponent("bounded")
        for i in 0..<4 {
            #expect(try rulesClient(fx, ["--max-queued-events", "3", "record", "--name", "b\(i)"], cache: bounded).status == 0)
        }
        _ = try rulesClient(fx, ["--max-queued-events", "3", "check"], cache: bounded)
        let full = try fx.json(try rulesClient(fx, ["--max-queued-events", "3", "--json", "status"], cache: bounded))
        #expect((full["events"] as? [String: Int]) == ["pending": 1, "dropped": 3], "\(full)")
    }
}

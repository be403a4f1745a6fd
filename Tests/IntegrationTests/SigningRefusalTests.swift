import Foundation
import ModeldSigning
import Testing

/// SPEC §12.1 through the real binaries: a snapshot altered on the origin is never signed. A
/// signing modeld (re-signing every second) and `modelctl sign refresh` keep the old pointer,
/// name the file (log, stderr), count `modeld_signing_refused_total`; `modelctl verify` reports
/// `snapshot_mismatch`; `modelctl catalog bump` makes the writers derive version N+1 afresh.
@Suite(.serialized) final class SigningRefusalTests {
    let fx: SigningFixture

    init() throws {
        fx = try SigningFixture()
        try fx.generate("k")
    }

    deinit { fx.remove() }

    /// The two snapshots of catalog version `n` the tests alter, relative to the models directory.
    static func snapshots(_ n: Int64) -> [String] { ["details/\(n).json", "rules/stable/\(n).json"] }

    static func pointer(_ models: URL, _ name: String) -> SignedPointer? {
        (try? Data(contentsOf: models.appendingPathComponent(name))).flatMap { try? SignedPointer.decode(Array($0)) }
    }

    /// Both pointers (details, rules of stable), read from disk.
    static func pointers(_ models: URL) -> [SignedPointer?] {
        [pointer(models, SignedPointer.fileName), pointer(models, SignedPointer.rulesPointerPath(channel: "stable"))]
    }

    /// Replaces the test's base URL in a snapshot: a JSON that still parses, pointing elsewhere.
    static func alter(_ models: URL, _ relative: String) throws {
        let file = models.appendingPathComponent(relative)
        let text = try String(contentsOf: file, encoding: .utf8)
        try #require(text.contains("models.example.test"), "\(relative): \(text)")
        try Data(text.replacingOccurrences(of: "models.example.test", with: "evil.example.test").utf8).write(to: file)
    }

    /// `modelctl verify --models-dir DIR --json`'s snapshot_mismatch problems by file.
    func mismatches(_ models: URL) throws -> [String: [String: Any]] {
        let r = try fx.modelctl(["verify", "--models-dir", models.path, "--json"])
        let report = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], "\(r.stdout)\(r.stderr)")
        let problems = try #require(report["problems"] as? [[String: Any]])
        #expect(r.status == (problems.isEmpty ? 0 : 1))
        var byFile: [String: [String: Any]] = [:]
        for p in problems where p["problem"] as? String == "snapshot_mismatch" { byFile[p["file"] as? String ?? ""] = p }
        return byFile
    }

    @Test func runningServer_refusesAlteredSnapshots_keepsPointers_countsAndLogs_thenBumpSignsNPlus1_SPEC12_1() throws {
        let server = try fx.server(["k"], resignSeconds: 1)
        let catalog = try CatalogFixture(server: server)
        _ = try catalog.publish(try catalog.randomFile())   // records the server's base: one derivation
        let models = server.modelsDir
        let n = try #require(try catalog.catalogOnDisk()["catalog_version"] as? Int).int64
        #expect(ModeldServer.eventually(within: 5) { Self.pointers(models).allSatisfy { $0?.catalog == n && $0?.signatures.count == 1 } })
        let signed = Self.pointers(models).compactMap { $0 }
        let original = try Self.snapshots(n).map { try SHA256Sum.of(models.appendingPathComponent($0)) }
        #expect(signed.map(\.sha256) == original)

        for file in Self.snapshots(n) { try Self.alter(models, file) }
        let altered = try Self.snapshots(n).map { try SHA256Sum.of(models.appendingPathComponent($0)) }
        // Two re-signing rounds refuse both files (at least 4 refusals), naming each in the log.
        #expect(try ModeldServer.eventually(within: 10) { (try catalog.metric("modeld_signing_refused_total") ?? 0) >= 4 })
        for file in Self.snapshots(n) {
            #expect(server.log.contains("refusing to sign: \(file) holds other bytes than catalog version \(n) derives"), "\(server.log)")
        }
        // The pointers still name the derived bytes: a signed client rejects the altered ones.
        for (pointer, (sha, bad)) in zip(Self.pointers(models), zip(original, altered)) {
            #expect(pointer?.catalog == n && pointer?.sha256 == sha && pointer?.sha256 != bad)
        }
        let served = try Curl.run([server.url + "/" + SignedPointer.rulesPointerPath(channel: "stable")])
        #expect(try SignedPointer.decode(Array(served.body)).sha256 == original[1])
        let clientView = try fx.modelctl(["verify", "--signatures", "--public-key", fx.pub("k"), "--server", server.url])
        #expect(clientView.status == 1 && clientView.stdout.contains("details/\(n).json"), "\(clientView.stdout)")

        // verify names both files with the derivation's and the disk's SHA-256 and the remedy.
        let reported = try mismatches(models)
        #expect(Set(reported.keys) == Set(Self.snapshots(n)))
        for (file, (sha, bad)) in zip(Self.snapshots(n), zip(original, altered)) {
            #expect(reported[file]?["expected_sha256"] as? String == sha && reported[file]?["actual_sha256"] as? String == bad)
            #expect(reported[file]?["remedy"] as? String == "modelctl catalog bump --models-dir \(models.path)")
        }

        let bump = try fx.modelctl(["catalog", "bump", "--models-dir", models.path])
        #expect(bump.status == 0 && bump.stdout == "catalog_version \(n + 1)\n", "\(bump.stdout)\(bump.stderr)")
        #expect(ModeldServer.eventually(within: 6) { Self.pointers(models).allSatisfy { $0?.catalog == n + 1 && $0?.signatures.count == 1 } })
        let trusted = try fx.trusted(["k"])
        for (pointer, file) in zip(Self.pointers(models), Self.snapshots(n + 1)) {
            let p = try #require(pointer)
            let bytes = Array(try Data(contentsOf: models.appendingPathComponent(file)))
            #expect(try trusted.verifyPointer(p, snapshot: bytes, now: SigningFixture.now) == [trusted.trusted[0].keyID])
            #expect(!String(decoding: bytes, as: UTF8.self).contains("evil"), "\(file) derived afresh")
        }
        #expect(try mismatches(models).isEmpty)
        let afterBump = try fx.modelctl(["verify", "--signatures", "--public-key", fx.pub("k"), "--server", server.url])
        #expect(afterBump.status == 0, "\(afterBump.stdout)")
    }

    @Test func signRefresh_overAlteredSnapshots_exits1NamingThem_keepsPointers_verifyReports_bumpRepairs_SPEC12_1() throws {
        let models = fx.dir.appendingPathComponent("models")
        try FileManager.default.createDirectory(at: fx.dir.appendingPathComponent("config"), withIntermediateDirectories: true)
        try Data(#"{"signing":{"keys":["keys/k.key"]}}"#.utf8).write(to: fx.dir.appendingPathComponent("config/modeld.json"))
        let file = fx.dir.appendingPathComponent("m.onnx")
        try Data(repeating: 3, count: 500).write(to: file)
        let publish = try fx.modelctl(["publish", file.path, "--sdk-min", "1.0", "--models-dir", models.path,
                                       "--public-base-url", "http://models.example.test"])
        try #require(publish.status == 0, "\(publish.stderr)")
        let refresh = { try self.fx.modelctl(["sign", "refresh", "--models-dir", models.path, "--key", self.fx.key("k")]) }
        try #require(try refresh().status == 0)
        let before = try [SignedPointer.fileName, SignedPointer.rulesPointerPath(channel: "stable")].map {
            try Data(contentsOf: models.appendingPathComponent($0))
        }
        for snapshot in Self.snapshots(1) { try Self.alter(models, snapshot) }

        let refused = try refresh()
        #expect(refused.status == 1, "\(refused.stdout)\(refused.stderr)")
        for snapshot in Self.snapshots(1) {
            #expect(refused.stderr.contains("modelctl: error: refusing to sign: \(snapshot) holds other bytes"), "\(refused.stderr)")
        }
        #expect(refused.stderr.hasSuffix("modelctl: 2 snapshot(s) not signed: they hold other bytes than the catalog derives; "
                                         + "run `modelctl catalog bump --models-dir \(models.path)`\n"), "\(refused.stderr)")
        let after = try [SignedPointer.fileName, SignedPointer.rulesPointerPath(channel: "stable")].map {
            try Data(contentsOf: models.appendingPathComponent($0))
        }
        #expect(after == before, "the previous pointers are kept byte for byte")

        let text = try fx.modelctl(["verify", "--models-dir", models.path])
        #expect(text.status == 1)
        #expect(text.stdout.contains("details/1.json: snapshot_mismatch: sha256 \(try SHA256Sum.of(models.appendingPathComponent("details/1.json")))"),
                "\(text.stdout)")
        #expect(text.stdout.contains("; run `modelctl catalog bump --models-dir \(models.path)`"), "\(text.stdout)")
        #expect(text.stderr == "modelctl: 2 snapshots hold other bytes than the catalog derives (snapshot_mismatch)\n", "\(text.stderr)")
        let reported = try mismatches(models)
        #expect(Set(reported.keys) == Set(Self.snapshots(1)))
        for (snapshot, pointer) in zip(Self.snapshots(1), before) {
            let signed = try SignedPointer.decode(Array(pointer))
            #expect(reported[snapshot]?["expected_sha256"] as? String == signed.sha256, "the derivation is what was signed")
            #expect(reported[snapshot]?["actual_sha256"] as? String == (try SHA256Sum.of(models.appendingPathComponent(snapshot))))
        }

        // Keys come from ./config/modeld.json: the bump signs version 2 at once.
        let bump = try fx.modelctl(["catalog", "bump", "--models-dir", models.path, "--json"])
        #expect(bump.status == 0 && bump.stdout == #"{"catalog_version":2}"# + "\n", "\(bump.stdout)\(bump.stderr)")
        #expect(Self.pointers(models).map { $0?.catalog } == [2, 2])
        let verify = try fx.modelctl(["verify", "--signatures", "--models-dir", models.path, "--public-key", fx.pub("k")])
        #expect(verify.status == 0, "\(verify.stdout)")
        #expect(try mismatches(models).isEmpty)
        #expect(try refresh().status == 0)
    }
}

private extension Int {
    var int64: Int64 { Int64(self) }
}

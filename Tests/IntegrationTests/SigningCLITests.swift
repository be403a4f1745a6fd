import Foundation
import ModeldSigning
import Testing

/// `modelctl keys|sign|verify --signatures` (SPEC §12) and the documented rotation procedure
/// (README "Signing keys and rotation"), walked with real servers and real key files.
@Suite(.serialized) final class SigningCLITests {
    let fx: SigningFixture

    init() throws { fx = try SigningFixture() }
    deinit { fx.remove() }

    @Test func keysGenerate_writesModes_printsKeyID_andRefusesToOverwrite_SPEC12() throws {
        let r = try fx.generate("k1")
        let pub = try KeyFileFormat.parsePublic(String(contentsOfFile: fx.pub("k1"), encoding: .utf8))
        #expect(r.stdout.contains(pub.keyID) && r.stdout.contains(Data(pub.raw).base64EncodedString()))
        let attributes = { (p: String) in (try FileManager.default.attributesOfItem(atPath: p)[.posixPermissions] as? Int) ?? -1 }
        #expect(try attributes(fx.key("k1")) == 0o600)
        #expect(try attributes(fx.keys.path) == 0o700)
        #expect(try KeyFileFormat.parsePrivate(String(contentsOfFile: fx.key("k1"), encoding: .utf8)).keyID == pub.keyID)
        let before = try Data(contentsOf: URL(fileURLWithPath: fx.key("k1")))
        let again = try fx.modelctl(["keys", "generate", "--name", "k1", "--out", fx.keys.path])
        #expect(again.status == 1 && again.stderr.contains("already exists"), "\(again.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: fx.key("k1"))) == before)
        #expect(try fx.modelctl(["keys", "generate", "--name", "../x", "--out", fx.keys.path]).status == 2)
        // Default directory config/keys, relative to the working directory.
        #expect(try fx.modelctl(["keys", "generate", "--name", "d"]).status == 0)
        #expect(FileManager.default.fileExists(atPath: fx.dir.appendingPathComponent("config/keys/d.pub").path))
    }

    @Test func keysList_marksTheConfiguredSigningKeys() throws {
        try fx.generate("old")
        try fx.generate("new")
        try FileManager.default.createDirectory(at: fx.dir.appendingPathComponent("config"), withIntermediateDirectories: true)
        try Data(#"{"signing":{"keys":["keys/new.key"]}}"#.utf8).write(to: fx.dir.appendingPathComponent("config/modeld.json"))
        let r = try fx.modelctl(["keys", "list", "--dir", fx.keys.path])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n")
        #expect(lines.contains { $0.hasPrefix("new ") && $0.hasSuffix("yes") }, "\(r.stdout)")
        #expect(lines.contains { $0.hasPrefix("old ") && $0.hasSuffix("no") }, "\(r.stdout)")
    }

    @Test func signRefresh_andVerifyDirectory_exitCodes_SPEC12() throws {
        try fx.generate("k")
        try fx.generate("other")
        let models = fx.dir.appendingPathComponent("models")
        try FileManager.default.copyItem(at: ModeldServer.repositoryRoot.appendingPathComponent("models"), to: models)
        try? FileManager.default.removeItem(at: models.appendingPathComponent("details"))
        try? FileManager.default.removeItem(at: models.appendingPathComponent("latest_model_details.sig.json"))
        let verify = { (keys: [String]) in
            try self.fx.modelctl(["verify", "--signatures", "--models-dir", models.path] + keys.flatMap { ["--public-key", self.fx.pub($0)] })
        }
        #expect(try verify(["k"]).status == 1, "no pointer yet")
        let refresh = try fx.modelctl(["sign", "refresh", "--models-dir", models.path, "--key", fx.key("k")])
        #expect(refresh.status == 0, "\(refresh.stderr)")
        #expect(try verify(["k"]).status == 0)
        #expect(try verify(["other"]).status == 1)
        #expect(try verify(["other", "k"]).status == 0)
        // A snapshot byte changed: its sha256 no longer matches the signed pointer.
        let pointer = try SignedPointer.decode(Array(Data(contentsOf: models.appendingPathComponent("latest_model_details.sig.json"))))
        let snapshot = models.appendingPathComponent(pointer.file)
        var bytes = try Data(contentsOf: snapshot)
        bytes[bytes.count - 2] ^= 0x20
        try bytes.write(to: snapshot)
        let tampered = try verify(["k"])
        #expect(tampered.status == 1 && tampered.stdout.contains("sha256"), "\(tampered.stdout)")
        // Usage errors exit 2.
        #expect(try fx.modelctl(["verify", "--signatures", "--models-dir", models.path]).status == 2)
        #expect(try fx.modelctl(["sign", "refresh", "--models-dir", models.path]).status == 2)
        chmod(fx.key("k"), 0o640)
        let loose = try fx.modelctl(["sign", "refresh", "--models-dir", models.path, "--key", fx.key("k")])
        #expect(loose.status == 2 && loose.stderr.contains(fx.key("k")), "\(loose.stderr)")
    }

    /// README's procedure: A signs → generate B, ship apps trusting {A, B}, configure A+B →
    /// remove A. A client trusting {A, B} verifies at every step; one trusting only A verifies
    /// until A is removed, one trusting only B from the moment B signs.
    @Test func rotation_oneKey_twoKeys_newKeyOnly_SPEC12() throws {
        try fx.generate("A")
        // Each server has its own root (removed with it); the models directory is shared.
        let models = fx.dir.appendingPathComponent("models")
        func check(_ server: ModeldServer, trusting keys: [String]) throws -> Int32 {
            let r = try fx.modelctl(["verify", "--signatures", "--server", server.url, "--sdk", "2.3"]
                                    + keys.flatMap { ["--public-key", fx.pub($0)] })
            return r.status
        }
        func waitForPointer(_ server: ModeldServer, keyCount: Int) -> Bool {
            ModeldServer.eventually(within: 5) {
                let data = try? Data(contentsOf: server.modelsDir.appendingPathComponent("latest_model_details.sig.json"))
                return (data.flatMap { try? SignedPointer.decode(Array($0)) }?.signatures.count) == keyCount
            }
        }

        var server = try fx.server(["A"], models: models)
        #expect(waitForPointer(server, keyCount: 1))
        #expect(try check(server, trusting: ["A"]) == 0)

        try fx.generate("B")
        #expect(try check(server, trusting: ["A", "B"]) == 0, "apps trusting {A,B} ship while A alone signs")
        #expect(try check(server, trusting: ["B"]) == 1)
        server.signal(SIGTERM)
        #expect(server.waitForExit(within: 20) == 0)

        server = try fx.server(["A", "B"], models: models)
        #expect(waitForPointer(server, keyCount: 2))
        for trust in [["A"], ["B"], ["A", "B"]] { #expect(try check(server, trusting: trust) == 0, "\(trust)") }
        server.signal(SIGTERM)
        #expect(server.waitForExit(within: 20) == 0)

        server = try fx.server(["B"], models: models)
        #expect(waitForPointer(server, keyCount: 1))
        #expect(try check(server, trusting: ["A", "B"]) == 0)
        #expect(try check(server, trusting: ["B"]) == 0)
        #expect(try check(server, trusting: ["A"]) == 1, "old key removed: only apps that never got B fail")
    }
}

extension SigningCLITests {
    /// SPEC §12: modelctl writes the signed snapshot and pointer itself when it has keys
    /// (`signing` in ./config/modeld.json), here after an offline publish with no server.
    @Test func offlinePublish_withConfiguredKeys_signsTheStaticMetadata_SPEC12() throws {
        try fx.generate("k")
        let models = fx.dir.appendingPathComponent("models")
        try FileManager.default.createDirectory(at: fx.dir.appendingPathComponent("config"), withIntermediateDirectories: true)
        try Data(#"{"signing":{"keys":["keys/k.key"]}}"#.utf8).write(to: fx.dir.appendingPathComponent("config/modeld.json"))
        let file = fx.dir.appendingPathComponent("m.onnx")
        try Data(repeating: 1, count: 100).write(to: file)
        let r = try fx.modelctl(["publish", file.path, "--sdk-min", "1.0", "--models-dir", models.path])
        #expect(r.status == 0, "\(r.stderr)")
        let pointer = try SignedPointer.decode(Array(Data(contentsOf: models.appendingPathComponent("latest_model_details.sig.json"))))
        #expect(pointer.catalog == 1 && pointer.file == "details/1.json")
        let verify = try fx.modelctl(["verify", "--signatures", "--models-dir", models.path, "--public-key", fx.pub("k")])
        #expect(verify.status == 0, "\(verify.stdout)")
        // A loose key file stops the publish before anything is written (exit 2).
        chmod(fx.key("k"), 0o644)
        let loose = try fx.modelctl(["publish", file.path, "--sdk-min", "1.0", "--models-dir", models.path])
        #expect(loose.status == 2 && loose.stderr.contains("keys/k.key"), "\(loose.stderr)")
        #expect(try SignedPointer.decode(Array(Data(contentsOf: models.appendingPathComponent("latest_model_details.sig.json")))).catalog == 1)
    }
}

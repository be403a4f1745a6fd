import ChildProcesses
import Foundation
import ModeldSigning
import Testing

/// SPEC §12 through the real binaries: signed /latest answers, static pointer and snapshots,
/// key file checks, re-signing.
@Suite(.serialized) final class SigningServerTests {
    let fx: SigningFixture

    init() throws {
        fx = try SigningFixture()
        try fx.generate("a")
        try fx.generate("b")
    }

    deinit { fx.remove() }

    @Test func latest_GET_gzip_HEAD_304_POST_carryTwoSignaturesOverTheIdentityBody_SPEC12() throws {
        let server = try fx.server(["a", "b"])
        let url = "\(server.url)/latest?sdk=2.3"
        let get = try Curl.run([url])
        #expect(get.status == 200)
        let onlyA = try fx.trusted(["a"]), onlyB = try fx.trusted(["b"])
        #expect(try SigningFixture.verify(get, identity: get.body, with: onlyA) == [try fx.trusted(["a"]).trusted[0].keyID])
        #expect(try SigningFixture.verify(get, identity: get.body, with: onlyB).count == 1)
        #expect(SignatureList.parse(get.header("Modeld-Signature") ?? "")?.count == 2)
        let params = try #require(SignatureParams.parse(get.header("Modeld-Signature-Params") ?? ""))
        #expect(params.expires - params.created == 604_800)

        let gzip = try Curl.run(["-H", "Accept-Encoding: gzip", url])   // raw gzip bytes, not decoded
        #expect(gzip.header("Content-Encoding") == "gzip" && gzip.body != get.body)
        #expect(try SigningFixture.verify(gzip, identity: get.body, with: onlyA).count == 1)

        let head = try Curl.run(["-I", url])
        #expect(try SigningFixture.verify(head, identity: get.body, with: onlyB).count == 1)

        let etag = try #require(get.header("ETag"))
        let notModified = try Curl.run(["-H", "If-None-Match: \(etag)", url])
        #expect(notModified.status == 304)
        #expect(try SigningFixture.verify(notModified, identity: get.body, with: onlyA).count == 1)

        let post = try Curl.run(["-H", "Content-Type: application/json", "-d",
                                 #"{"batch_id":"s1","client_id":"c1","events":[{"name":"e","ts":1}]}"#, url])
        #expect(post.status == 200 && post.text.contains(#""events":{"accepted":1"#))
        #expect(try SigningFixture.verify(post, identity: post.body, with: onlyB).count == 1)
        // A body that differs from what was signed fails.
        #expect(throws: SignatureVerifier.Failure.self) { try SigningFixture.verify(post, identity: get.body, with: onlyB) }
    }

    @Test func errors_andTheUnsignedDerivedFile_carryNoSignature_SPEC12() throws {
        let server = try fx.server(["a"])
        for path in ["/latest?sdk=x", "/latest?sdk=0.1", "/latest_model_details.json", "/nope"] {
            let r = try Curl.run([server.url + path])
            #expect(r.header("Modeld-Signature") == nil && r.header("Modeld-Signature-Params") == nil, "\(path)")
        }
        let withSDK = try Curl.run([server.url + "/latest_model_details.json?sdk=2.3"])
        #expect(withSDK.header("Modeld-Signature") != nil)
    }

    @Test func unsignedServer_sendsNoSignatureHeaders() throws {
        let server = try ModeldServer()
        let r = try Curl.run([server.url + "/latest?sdk=2.3"])
        #expect(r.status == 200 && r.header("Modeld-Signature") == nil)
        #expect(try Curl.run([server.url + "/latest_model_details.sig.json"]).status == 404)
    }

    @Test(arguments: ["mode644", "directory", "missing", "garbage"])
    func badKeyFile_exits2_namingTheFile_SPEC12(_ kind: String) throws {
        let path = fx.dir.appendingPathComponent("bad-\(kind).key").path
        let fm = FileManager.default
        switch kind {
        case "mode644":
            try fm.copyItem(atPath: fx.key("a"), toPath: path)
            chmod(path, 0o644)
        case "directory": try fm.createDirectory(atPath: path, withIntermediateDirectories: false)
        case "garbage":
            try Data("not a key\n".utf8).write(to: URL(fileURLWithPath: path))
            chmod(path, 0o600)
        default: break
        }
        let r = try ChildProcess.run(TestBinaries.modeld, [
            "--listen", "127.0.0.1:0", "--models-dir", fx.dir.appendingPathComponent("m").path,
            "--data-dir", fx.dir.appendingPathComponent("d-\(kind)").path,
        ], environment: ["MODELD_SIGNING_KEYS": path], directory: fx.dir, timeout: .seconds(30))
        #expect(r.status == 2, "\(r.stderr)")
        #expect(r.stderr.contains(path), "\(r.stderr)")
        #expect(!r.stderr.contains("listening"))
        let seed = try String(contentsOfFile: fx.key("a"), encoding: .utf8).split(separator: " ")[1]
        #expect(!r.stderr.contains(seed.trimmingCharacters(in: .newlines)), "key bytes must never be logged")
    }

    @Test func threeKeys_isAConfigurationError() throws {
        try fx.generate("c")
        let r = try ChildProcess.run(TestBinaries.modeld, ["--listen", "127.0.0.1:0"],
                                     environment: ["MODELD_SIGNING_KEYS": [fx.key("a"), fx.key("b"), fx.key("c")].joined(separator: ",")],
                                     directory: fx.dir, timeout: .seconds(30))
        #expect(r.status == 2 && r.stderr.contains("MODELD_SIGNING_KEYS") && r.stderr.contains("1-2"), "\(r.stderr)")
    }

    @Test func snapshotAndPointer_areWrittenAndServed_andFollowAnOfflinePublish_SPEC12() throws {
        let server = try fx.server(["a"])
        let pointerFile = server.modelsDir.appendingPathComponent("latest_model_details.sig.json")
        #expect(ModeldServer.eventually(within: 5) { FileManager.default.fileExists(atPath: pointerFile.path) })
        let first = try SignedPointer.decode(Array(Data(contentsOf: pointerFile)))

        let served = try Curl.run([server.url + "/latest_model_details.sig.json"])
        #expect(served.status == 200 && served.header("Content-Type") == "application/json")
        #expect(served.header("Cache-Control") == "public, max-age=60")
        let snapshot = try Curl.run([server.url + "/" + first.file])
        #expect(snapshot.header("Cache-Control") == "public, max-age=31536000, immutable")
        #expect(snapshot.body == (try Data(contentsOf: server.modelsDir.appendingPathComponent("latest_model_details.json"))))
        #expect(try fx.trusted(["a"]).verifyPointer(try SignedPointer.decode(Array(served.body)), snapshot: Array(snapshot.body),
                                                    now: SigningFixture.now).count == 1)
        for bad in ["/details/01.json", "/details/x.json", "/details/999.json", "/details/1.json/x"] {
            #expect(try Curl.run([server.url + bad]).status == 404, "\(bad)")
        }

        // An offline publish (no server involved): the server sees it and re-signs within 2 s of seeing it.
        let file = fx.dir.appendingPathComponent("m.onnx")
        try Data(repeating: 7, count: 1000).write(to: file)
        let pub = try fx.modelctl(["publish", file.path, "--sdk-min", "2.0", "--models-dir", server.modelsDir.path,
                                   "--public-base-url", "http://models.example.test"])
        #expect(pub.status == 0, "\(pub.stderr)")
        var next: SignedPointer?
        #expect(ModeldServer.eventually(within: 6) {
            next = try? SignedPointer.decode(Array(Data(contentsOf: pointerFile)))
            return (next?.catalog ?? 0) > first.catalog
        })
        let snapshotPath = server.modelsDir.appendingPathComponent(try #require(next).file).path
        #expect(FileManager.default.fileExists(atPath: snapshotPath))
        #expect(FileManager.default.fileExists(atPath: server.modelsDir.appendingPathComponent(first.file).path), "old snapshot kept")
        let verify = try fx.modelctl(["verify", "--signatures", "--public-key", fx.pub("a"), "--server", server.url])
        #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
    }

    @Test func signatures_areRemadeEveryResignSeconds_and304RenewsExpiry_SPEC12() throws {
        let server = try fx.server(["a"], resignSeconds: 1)
        let url = "\(server.url)/latest?sdk=2.3"
        let first = try Curl.run([url])
        let created = try #require(SignatureParams.parse(first.header("Modeld-Signature-Params") ?? "")).created
        var renewed: CurlResponse?
        #expect(try ModeldServer.eventually(within: 5) {
            let r = try Curl.run(["-H", "If-None-Match: \(first.header("ETag")!)", url])
            renewed = r
            return (SignatureParams.parse(r.header("Modeld-Signature-Params") ?? "")?.created ?? 0) > created
        })
        #expect(renewed?.status == 304)
        #expect(try SigningFixture.verify(try #require(renewed), identity: first.body, with: fx.trusted(["a"])).count == 1)
    }
}

import ChildProcesses
import Foundation
import HTTPTestSupport
import Testing

/// The admin API of the real server (SPEC §7.1, §10): authentication, conflicts, verification,
/// limits answered before the body, `Expect: 100-continue`.
@Suite(.serialized) final class CatalogAdminTests {
    private static let publishPath = "/admin/models?sdk_min=1.0&ext=bin"

    @Test func adminAPI_requiresTheBearerToken_401_SPEC7_1() throws {
        let fx = try CatalogFixture()
        let file = try fx.randomFile()
        for auth in [[String](), ["-H", "Authorization: Bearer wrong-token"], ["-H", "Authorization: Basic \(fx.server.token)"],
                     ["-H", "Authorization: Bearer \(fx.server.token)x"], ["-H", "Authorization: Bearer"]] {
            let list = try fx.curl("/admin/models", auth)
            #expect(list.status == 401 && list.errorCode == "unauthorized", "\(auth) → \(list.status)")
            #expect(list.header("Cache-Control") == "no-store")
            let post = try fx.curl(Self.publishPath, auth + ["--data-binary", "@\(file.path)", "-H", "Content-Type: application/octet-stream"])
            #expect(post.status == 401 && post.errorCode == "unauthorized")
        }
        let r = try ChildProcess.run(TestBinaries.modelctl, ["publish", file.path, "--sdk-min", "1", "--server", fx.server.url, "--token", "nope"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("401") || r.stderr.contains("unauthorized"), "\(r.stderr)")
        #expect(fx.modelsEntries().tmp.isEmpty)
        #expect((try fx.curl("/admin/models", fx.auth).json?["releases"] as? [Any])?.isEmpty == true, "nothing was published")
    }

    @Test func adminAPI_withoutConfiguredToken_is404_SPEC7_1() throws {
        // A config without admin_token(_file) and MODELD_ADMIN_TOKEN empty (= unset).
        let config = FileManager.default.temporaryDirectory.appendingPathComponent("modeld-notoken-\(UUID().uuidString).json")
        try Data(#"{"latest_max_age_seconds": 60}"#.utf8).write(to: config)
        defer { try? FileManager.default.removeItem(at: config) }
        let fx = try CatalogFixture(environment: ["MODELD_ADMIN_TOKEN": ""], extraArguments: ["--config", config.path])
        #expect(fx.server.log.contains("no admin token configured"))
        for (path, args) in [("/admin/models", [String]()), ("/admin/models", fx.auth), ("/admin/models/x", fx.auth),
                             (Self.publishPath, fx.auth + ["--data-binary", "abc"])] {
            let r = try fx.curl(path, args)
            #expect(r.status == 404 && r.errorCode == "not_found", "\(path) \(args) → \(r.status)")
        }
        #expect(fx.modelsEntries().tmp.isEmpty)
    }

    @Test func publishWithExistingID_is409IdInUse_SPEC7_1() throws {
        let fx = try CatalogFixture()
        let imported = "0b6f5d1e-7c6a-4e1f-9f6e-3a1f1b2c3d4e"
        let first = try fx.publish(try fx.randomFile(), ["--id", imported])
        #expect(first["id"] as? String == imported)
        let again = try fx.modelctl(["publish", try fx.randomFile().path, "--sdk-min", "1", "--id", imported])
        #expect(again.status == 1)
        #expect(again.stderr.contains("id_in_use") || again.stderr.contains("409"), "\(again.stderr)")
        let viaCurl = try fx.curl("/admin/models?sdk_min=1&ext=bin&id=\(imported)", fx.auth + ["--data-binary", "abc"])
        #expect(viaCurl.status == 409 && viaCurl.errorCode == "id_in_use")
        // UUIDs compare case-insensitively: the same id in capitals is still in use.
        let upper = try fx.curl("/admin/models?sdk_min=1&ext=bin&id=\(imported.uppercased())", fx.auth + ["--data-binary", "abc"])
        #expect(upper.status == 409 && upper.errorCode == "id_in_use")
        let releases = try #require(try fx.curl("/admin/models", fx.auth).json?["releases"] as? [[String: Any]])
        #expect(releases.count == 1)
        #expect(fx.modelsEntries().tmp.isEmpty)
    }

    @Test func sha256Mismatch_is422AndKeepsNothing_SPEC7_1() throws {
        let fx = try CatalogFixture()
        let file = try fx.randomFile(size: 300_000)
        let before = fx.modelsEntries().models
        let catalogBefore = try? Data(contentsOf: fx.server.modelsDir.appendingPathComponent("catalog.json"))
        let wrong = String(repeating: "0", count: 64)
        // As a header with Content-Length, and as a chunked trailer-less header on a chunked body.
        for extra in [[String](), ["-H", "Transfer-Encoding: chunked"]] {
            let r = try fx.curl(Self.publishPath, fx.auth + ["-T", file.path, "-X", "POST", "-H", "X-Model-SHA256: \(wrong)"] + extra)
            #expect(r.status == 422 && r.errorCode == "sha256_mismatch", "\(extra) → \(r.status) \(r.text)")
        }
        let after = fx.modelsEntries()
        #expect(after.tmp.isEmpty, "models/.tmp keeps nothing: \(after.tmp)")
        #expect(after.models.subtracting([".tmp", ".lock"]) == before.subtracting([".tmp", ".lock"]), "models/ keeps nothing")
        #expect((try? Data(contentsOf: fx.server.modelsDir.appendingPathComponent("catalog.json"))) == catalogBefore)
        #expect(try fx.curl("/latest?sdk=1.0").status == 404)

        // The right digest is accepted.
        let right = try SHA256Sum.of(file)
        let ok = try fx.curl(Self.publishPath, fx.auth + ["-T", file.path, "-X", "POST", "-H", "X-Model-SHA256: \(right)"])
        #expect(ok.status == 201 && ok.json?["sha256"] as? String == right)
        #expect(ok.header("Location") == "/admin/models/\(ok.json?["id"] as? String ?? "")")
    }

    @Test func uploadOverMaxUploadBytes_is413BeforeTheBody_SPEC7_1() throws {
        let fx = try CatalogFixture(environment: ["MODELD_LIMITS_MAX_UPLOAD_BYTES": "1000"])
        let head = { (length: Int, expect: Bool) in
            "POST \(Self.publishPath) HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(fx.server.token)\r\n" +
                "Content-Length: \(length)\r\n" + (expect ? "Expect: 100-continue\r\n" : "") + "\r\n"
        }
        // A 5 GB Content-Length and not one body byte sent: the 413 must still arrive.
        let c1 = try RawClient(port: fx.server.port)
        try c1.send(head(5_000_000_000, false))
        let r1 = try c1.readResponse()
        #expect(r1.status == 413)
        #expect(String(decoding: r1.body, as: UTF8.self).contains("body_too_large"))

        // With Expect: the final 413 instead of 100 Continue.
        let c2 = try RawClient(port: fx.server.port)
        try c2.send(head(1001, true))
        let h2 = try c2.readHead()
        #expect(h2.status == 413)

        // Exactly the limit is fine; one byte more by curl is refused.
        let ok = try fx.curl(Self.publishPath, fx.auth + ["--data-binary", "@\(try fx.randomFile(size: 1000).path)"])
        #expect(ok.status == 201, "\(ok.text)")
        let tooBig = try fx.curl(Self.publishPath, fx.auth + ["--data-binary", "@\(try fx.randomFile(size: 1001).path)"])
        #expect(tooBig.status == 413 && tooBig.errorCode == "body_too_large")
        // Chunked (no length known up front): refused once the limit is crossed, temp removed.
        let chunked = try fx.curl(Self.publishPath, fx.auth + ["-T", try fx.randomFile(size: 50_000).path, "-X", "POST", "-H", "Transfer-Encoding: chunked"])
        #expect(chunked.status == 413 && chunked.errorCode == "body_too_large")
        #expect(fx.modelsEntries().tmp.isEmpty)
        #expect((try fx.curl("/admin/models", fx.auth).json?["releases"] as? [Any])?.count == 1)
    }

    @Test func expect100Continue_isAnsweredBeforeTheBody_SPEC7_1() throws {
        let fx = try CatalogFixture()
        let body = Array("tiny model bytes".utf8)
        let c = try RawClient(port: fx.server.port)
        try c.send("POST \(Self.publishPath) HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(fx.server.token)\r\n" +
                   "Content-Length: \(body.count)\r\nExpect: 100-continue\r\n\r\n")
        let interim = try c.readHead()
        #expect(interim.status == 100, "100 Continue before any body byte")
        try c.send(body)
        let final = try c.readResponse()
        #expect(final.status == 201)
        let release = try #require(try JSONSerialization.jsonObject(with: Data(final.body)) as? [String: Any])
        #expect(release["size"] as? Int == body.count)
        #expect(release["sha256"] as? String == (try SHA256Sum.of(Data(body))))

        // Wrong token with Expect: the final 401, never a 100.
        let w = try RawClient(port: fx.server.port)
        try w.send("POST \(Self.publishPath) HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer wrong\r\n" +
                   "Content-Length: 1000000\r\nExpect: 100-continue\r\n\r\n")
        #expect(try w.readHead().status == 401)
    }

    // MARK: PATCH and publish as docs/openapi.yaml states them (issue #10: the OpenAPI contract)

    private func patch(_ fx: CatalogFixture, _ id: String, _ body: String) throws -> CurlResponse {
        try fx.curl("/admin/models/\(id)", fx.auth + ["-X", "PATCH", "-H", "Content-Type: application/json", "--data-binary", body])
    }

    @Test func patchWithEmptyObject_answersTheReleaseUnchanged_catalogNotRewritten_retired409_SPEC7_1() throws {
        let fx = try CatalogFixture()
        let id = try #require(try fx.publish(try fx.randomFile(), ["--label", "v1"])["id"] as? String)
        let catalogFile = fx.server.modelsDir.appendingPathComponent("catalog.json")
        let catalogBefore = try Data(contentsOf: catalogFile)
        let shown = try fx.curl("/admin/models/\(id)", fx.auth)
        let empty = try patch(fx, id, "{}")
        #expect(empty.status == 200, "\(empty.status) \(empty.text)")
        #expect(empty.text == shown.text, "the release as GET shows it")
        #expect(empty.header("Cache-Control") == "no-store")
        #expect(try Data(contentsOf: catalogFile) == catalogBefore, "a no-op PATCH does not rewrite catalog.json")
        // A retired release answers every PATCH 409 `retired`, the empty one included.
        #expect(try fx.modelctl(["retire", id]).status == 0)
        let retired = try patch(fx, id, "{}")
        #expect(retired.status == 409 && retired.errorCode == "retired", "\(retired.status) \(retired.text)")
        let missing = try patch(fx, "00000000-0000-4000-8000-000000000000", "{}")
        #expect(missing.status == 404 && missing.errorCode == "not_found")
        for bad in ["[]", "null", "nope", #"{"sdk_max":3}"#] {
            #expect(try patch(fx, id, bad).errorCode == "invalid_parameter", "\(bad)")
        }
    }

    @Test func patchSdkMaxNull_removesTheUpperBound_SPEC3_7_1() throws {
        let fx = try CatalogFixture()
        let id = try #require(try fx.publish(try fx.randomFile(), sdkMin: "1.0", ["--sdk-max", "2.0"])["id"] as? String)
        #expect(try fx.latestID("sdk=2.5") == nil)
        let widened = try patch(fx, id, #"{"sdk_max":null}"#)
        #expect(widened.status == 200, "\(widened.status) \(widened.text)")
        #expect(widened.json?["sdk_max"] == nil, "unset sdk_max is absent, never null: \(widened.text)")
        #expect(try fx.latestID("sdk=2.5") == id)
        #expect(try fx.latestID("sdk=999999") == id)
    }

    @Test func emptySdkRange_is400InvalidParameter_onPublishAndPatch_SPEC3_7_1() throws {
        let fx = try CatalogFixture()
        for range in ["sdk_min=2.3&sdk_max=2.3", "sdk_min=2.3&sdk_max=2.3.0", "sdk_min=2.3&sdk_max=1.9"] {
            let r = try fx.curl("/admin/models?\(range)&ext=bin", fx.auth + ["--data-binary", "abc"])
            #expect(r.status == 400 && r.errorCode == "invalid_parameter", "\(range) → \(r.status)")
            #expect(r.json?["message"] as? String == "sdk_max: must be greater than sdk_min (2.3)", "\(r.text)")
        }
        #expect(fx.modelsEntries().tmp.isEmpty)
        let id = try #require(try fx.publish(try fx.randomFile(), sdkMin: "2.3")["id"] as? String)
        let r = try patch(fx, id, #"{"sdk_max":"2.3"}"#)
        #expect(r.status == 400 && r.json?["message"] as? String == "sdk_max: must be greater than sdk_min (2.3)", "\(r.text)")
    }

    @Test func labelLength_countsUnicodeScalars_likeJSONSchemaMaxLength_SPEC3() throws {
        let fx = try CatalogFixture()
        let id = try #require(try fx.publish(try fx.randomFile())["id"] as? String)
        // 200 user-perceived characters, 400 scalars ("e" + COMBINING ACUTE ACCENT): over 200.
        let combining = String(repeating: "e\\u0301", count: 200)
        let tooLong = try patch(fx, id, #"{"label":""# + combining + #""}"#)
        #expect(tooLong.status == 400 && tooLong.errorCode == "invalid_parameter", "\(tooLong.status) \(tooLong.text)")
        let publish = try fx.curl("/admin/models?sdk_min=1&ext=bin&label=" + String(repeating: "e%CC%81", count: 101),
                                  fx.auth + ["--data-binary", "abc"])
        #expect(publish.status == 400 && publish.errorCode == "invalid_parameter", "\(publish.status) \(publish.text)")
        // Exactly 200 scalars (astral ones included) is fine.
        let fits = String(repeating: "\\ud83d\\ude80", count: 100) + String(repeating: "a", count: 100)
        let ok = try patch(fx, id, #"{"label":""# + fits + #""}"#)
        #expect(ok.status == 200 && (ok.json?["label"] as? String)?.unicodeScalars.count == 200, "\(ok.status) \(ok.text)")
    }
}

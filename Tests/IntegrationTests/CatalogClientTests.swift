import Foundation
import HTTPTestSupport
import Testing

/// The client side of the catalog through the real binaries: publish with `modelctl`, check and
/// download with `curl` (SPEC §3, §4.1, §4.3).
@Suite(.serialized) final class CatalogClientTests {
    let fx: CatalogFixture
    init() throws { fx = try CatalogFixture() }

    @Test func publishedModel_isLatestAndDownloadsVerifiedAndResumable_SPEC4_1_4_3_7_1() throws {
        let file = try fx.randomFile("weights.mlmodelc.zip", size: 3 << 20 + 11)
        let expectedSHA = try SHA256Sum.of(file)
        let release = try fx.publish(file, sdkMin: "2.3", ["--sdk-max", "3.0", "--label", "v12"])
        let id = try #require(release["id"] as? String)
        #expect(release["sha256"] as? String == expectedSHA)
        #expect(release["size"] as? Int == 3 << 20 + 11)
        #expect(release["ext"] as? String == "mlmodelc.zip")

        // §4.1: the URL comes from public_base_url, whatever Host the client sent.
        let latest = try fx.curl("/latest?sdk=2.3", ["-H", "Host: evil.example"])
        #expect(latest.status == 200)
        #expect(latest.header("Content-Type") == "application/json")
        let doc = try #require(latest.json)
        let fileName = "\(id).mlmodelc.zip"
        #expect(doc["url"] as? String == "http://models.example.test/models/\(fileName)")
        #expect(doc["id"] as? String == id)
        #expect(doc["sha256"] as? String == expectedSHA)
        #expect(doc["size"] as? Int == 3 << 20 + 11)
        #expect(doc["sdk_min"] as? String == "2.3" && doc["sdk_max"] as? String == "3.0")
        #expect(doc["channel"] as? String == "stable" && doc["label"] as? String == "v12")
        #expect(latest.header("Cache-Control") == "public, max-age=60")
        #expect(!latest.text.contains("evil.example"))

        // Download, verify by sha256 (independent sha256sum).
        let download = fx.scratch.appendingPathComponent("download")
        let got = try fx.curl("/models/\(fileName)", output: download)
        #expect(got.status == 200)
        #expect(try SHA256Sum.of(download) == expectedSHA)
        #expect(got.header("ETag") == "\"\(expectedSHA)\"")
        #expect(got.header("Accept-Ranges") == "bytes")
        #expect(got.header("Cache-Control") == "public, max-age=31536000, immutable")
        #expect(got.header("Repr-Digest")?.hasPrefix("sha-256=:") == true)
        #expect(got.header("Content-Length") == "\(3 << 20 + 11)")

        // Resume: keep the first 1 MiB + 5 bytes, `curl -C -` fetches the rest with Range.
        let partial = fx.scratch.appendingPathComponent("partial")
        let whole = try Data(contentsOf: download)
        try whole.prefix(1 << 20 + 5).write(to: partial)
        let resumed = try fx.curl("/models/\(fileName)", ["-C", "-"], output: partial)
        #expect(resumed.status == 206)
        #expect(resumed.header("Content-Range") == "bytes \(1 << 20 + 5)-\(whole.count - 1)/\(whole.count)")
        #expect(try SHA256Sum.of(partial) == expectedSHA)

        // An explicit -r range is exactly those bytes.
        let slice = try fx.curl("/models/\(fileName)", ["-r", "100-199"])
        #expect(slice.status == 206 && slice.body == whole[100..<200])

        // If-None-Match → 304 on the file and on /latest.
        let file304 = try fx.curl("/models/\(fileName)", ["-H", "If-None-Match: \"\(expectedSHA)\""])
        #expect(file304.status == 304 && file304.body.isEmpty)
        #expect(file304.header("ETag") == "\"\(expectedSHA)\"")
        let etag = try #require(latest.header("ETag"))
        #expect(etag.hasPrefix("\"") && !etag.hasPrefix("W/"), "strong ETag")
        let latest304 = try fx.curl("/latest?sdk=2.3", ["-H", "If-None-Match: \(etag)"])
        #expect(latest304.status == 304 && latest304.body.isEmpty)
        #expect(latest304.header("ETag") == etag)
        #expect(latest304.header("Cache-Control") == "public, max-age=60")
        #expect(latest304.header("Vary") == "Accept-Encoding")
    }

    @Test func latestGzip_hasItsOwnETagAndVary_HEADMatchesGET_SPEC4_1() throws {
        _ = try fx.publish(try fx.randomFile(), sdkMin: "1.0", ["--label", String(repeating: "compressible ", count: 10)])
        let plain = try fx.curl("/latest?sdk=1.0")
        let gz = try fx.curl("/latest?sdk=1.0", ["-H", "Accept-Encoding: gzip"])
        #expect(plain.status == 200 && gz.status == 200)
        #expect(gz.header("Content-Encoding") == "gzip")
        #expect(plain.header("Content-Encoding") == nil)
        #expect(gz.header("Vary") == "Accept-Encoding" && plain.header("Vary") == "Accept-Encoding")
        let gzTag = try #require(gz.header("ETag")), plainTag = try #require(plain.header("ETag"))
        #expect(gzTag != plainTag)
        // The gzip body inflates to the identity body (curl --compressed decodes it).
        let decoded = try fx.curl("/latest?sdk=1.0", ["--compressed"])
        #expect(decoded.body == plain.body)
        #expect(decoded.header("ETag") == gzTag)
        // Each ETag is only good for its own encoding.
        #expect(try fx.curl("/latest?sdk=1.0", ["-H", "Accept-Encoding: gzip", "-H", "If-None-Match: \(gzTag)"]).status == 304)
        #expect(try fx.curl("/latest?sdk=1.0", ["-H", "If-None-Match: \(gzTag)"]).status == 200)

        // HEAD: same status and headers as GET, no body.
        for (path, extra) in [("/latest?sdk=1.0", [String]()), ("/latest?sdk=1.0", ["-H", "Accept-Encoding: gzip"])] {
            let get = try fx.curl(path, extra)
            let head = try fx.curl(path, extra + ["-I"])
            #expect(head.status == get.status)
            #expect(head.stableHeaders() == get.stableHeaders())
        }
        let fileName = try #require(plain.json?["url"] as? String).components(separatedBy: "/models/")[1]
        let get = try fx.curl("/models/\(fileName)")
        let head = try fx.curl("/models/\(fileName)", ["-I"])
        #expect(head.status == 200 && head.stableHeaders() == get.stableHeaders())
        let ranged = try fx.curl("/models/\(fileName)", ["-r", "0-9"])
        let headRanged = try fx.curl("/models/\(fileName)", ["-I", "-r", "0-9"])
        #expect(headRanged.status == 206 && headRanged.stableHeaders() == ranged.stableHeaders())

        // No body after a HEAD head (curl -I cannot show it): on one keep-alive connection the
        // next bytes after each HEAD response head are the following response's status line.
        let c = try RawClient(port: fx.server.port)
        for path in ["/latest?sdk=1.0", "/models/\(fileName)"] {
            try c.send("HEAD \(path) HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\n\r\nGET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            let h = try c.readHead()
            #expect(h.status == 200 && Int(h.headers["Content-Length"] ?? "0")! > 0)
            let next = try c.readResponse()
            #expect(next.status == 200 && String(decoding: next.body, as: UTF8.self).contains("ok"), "\(path)")
        }
    }

    @Test func modelFiles_otherMethods405_traversal404_SPEC4_3() throws {
        let release = try fx.publish(try fx.randomFile("m.onnx"), sdkMin: "1.0")
        let fileName = try #require(release["file"] as? String)
        let put = try fx.curl("/models/\(fileName)", ["-X", "PUT", "--data-binary", "x"])
        #expect(put.status == 405)
        #expect(put.errorCode == "method_not_allowed")
        #expect(put.header("Allow") == "GET, HEAD")
        let delete = try fx.curl("/models/\(fileName)", ["-X", "DELETE"])
        #expect(delete.status == 405 && delete.header("Allow") == "GET, HEAD")

        for path in ["/models/../catalog.json", "/models/%2e%2e/catalog.json", "/models/%2e%2e/x", "/models/%2E%2E%2Fcatalog.json",
                     "//models/\(fileName)", "/models//\(fileName)", "/models/x/y", "/models/\(fileName)/x",
                     "/models/", "/models/catalog.json", "/models/.tmp", "/models/.lock",
                     "/models/latest_model_details.json", "/models/\(fileName)%00", "/models/./\(fileName)"] {
            let r = try fx.curl(path)
            #expect(r.status == 404, "\(path) → \(r.status)")
            #expect(r.errorCode == "not_found", "\(path)")
            #expect(r.header("Cache-Control") == "no-store", "\(path)")
        }
    }

    @Test func latestRules_invalidSdk_noModel_sdkMaxExclusive_channel_SPEC3_4_1() throws {
        for sdk in ["", "abc", "1.2.3.4", "1.-2", "1000000", "1..2", "%201"] {
            let r = try fx.curl("/latest?sdk=\(sdk)")
            #expect(r.status == 400 && r.errorCode == "invalid_sdk", "sdk=\(sdk) → \(r.status)")
            #expect(r.header("Cache-Control") == "no-store")
        }
        #expect(try fx.curl("/latest").errorCode == "invalid_sdk")
        let none = try fx.curl("/latest?sdk=1.0")
        #expect(none.status == 404 && none.errorCode == "no_model")

        let a = try #require(try fx.publish(try fx.randomFile(), sdkMin: "2.3", ["--sdk-max", "3.0"])["id"] as? String)
        let beta = try #require(try fx.publish(try fx.randomFile(), sdkMin: "2.0", ["--channel", "beta"])["id"] as? String)
        #expect(try fx.latestID("sdk=2.3") == a)
        #expect(try fx.latestID("sdk=2.3.0") == a)
        #expect(try fx.latestID("sdk=2.10") == a, "2.10 > 2.9 numerically")
        #expect(try fx.latestID("sdk=2.999999.999999") == a)
        #expect(try fx.latestID("sdk=2.2.999999") == nil, "sdk_min is inclusive")
        #expect(try fx.latestID("sdk=3") == nil, "sdk_max is exclusive")
        #expect(try fx.latestID("sdk=3.0.0") == nil)
        #expect(try fx.latestID("sdk=2.5&channel=beta") == beta)
        #expect(try fx.latestID("sdk=2.0&channel=stable") == nil)
        #expect(try fx.latestID("sdk=2.5&channel=nightly") == nil)
        // The newest eligible wins (highest seq).
        let b = try #require(try fx.publish(try fx.randomFile(), sdkMin: "2.0")["id"] as? String)
        #expect(try fx.latestID("sdk=2.5") == b)
        #expect(try fx.latestID("sdk=3.1") == b)
        // /latest_model_details.json?sdk= is the same endpoint.
        #expect(try fx.curl("/latest_model_details.json?sdk=2.5").json?["id"] as? String == b)
    }

    @Test func malformedChannelOrClientID_is400_inEveryFormOfTheUpdateCheck_SPEC4_1() throws {
        let longID = String(repeating: "0", count: 129)
        for path in ["/latest?sdk=1.0&", "/latest_model_details.json?sdk=1.0&", "/latest_model_details.json?"] {
            for query in ["client_id=\(longID)", "client_id=", "client_id=%0A", "channel=Beta", "channel="] {
                let r = try fx.curl(path + query)
                #expect(r.status == 400 && r.errorCode == "invalid_parameter", "\(path)\(query) → \(r.status)")
                #expect(r.header("Cache-Control") == "no-store")
            }
        }
        // Well-formed ones leave the derived file as it is (it is the stable channel's, for everyone).
        let plain = try fx.curl("/latest_model_details.json")
        let withParameters = try fx.curl("/latest_model_details.json?channel=stable&client_id=" + String(repeating: "0", count: 128))
        #expect(plain.status == 200 && withParameters.status == 200 && withParameters.body == plain.body)
    }

    @Test func latestModelDetails_answersGETOnly_postIs405_SPEC4_1_4_2_10() throws {
        let batch = #"{"batch_id":"b1","events":[]}"#
        for query in ["", "?sdk=1.0"] {
            let r = try fx.curl("/latest_model_details.json" + query,
                                ["-X", "POST", "-H", "Content-Type: application/json", "--data-binary", batch])
            #expect(r.status == 405 && r.errorCode == "method_not_allowed", "\(query) → \(r.status) \(r.text)")
            #expect(r.header("Allow") == "GET, HEAD")
        }
        let put = try fx.curl("/latest", ["-X", "PUT"])
        #expect(put.status == 405 && put.header("Allow") == "GET, HEAD, POST")
    }

    @Test func pauseResumeRetire_fallBackAtOnce_retiredIsFinal_SPEC3_7_1() throws {
        let old = try #require(try fx.publish(try fx.randomFile(), sdkMin: "1.0")["id"] as? String)
        let new = try #require(try fx.publish(try fx.randomFile(), sdkMin: "1.0")["id"] as? String)
        #expect(try fx.latestID("sdk=1.5") == new)

        #expect(try fx.modelctl(["pause", new]).status == 0)
        #expect(try fx.latestID("sdk=1.5") == old, "a paused release falls back to the previous one at once")
        #expect(try fx.modelctl(["resume", new]).status == 0)
        #expect(try fx.latestID("sdk=1.5") == new)
        let retire = try fx.modelctl(["retire", new])
        #expect(retire.status == 0, "\(retire.stderr)")
        #expect(try fx.latestID("sdk=1.5") == old)

        // A retired file stays downloadable (grace period) but can never change again.
        let shown = try fx.curl("/admin/models/\(new)", fx.auth)
        #expect(shown.json?["state"] as? String == "retired")
        #expect(shown.json?["retired_at"] is String)
        let file = try #require(shown.json?["file"] as? String)
        #expect(try fx.curl("/models/\(file)").status == 200)
        for body in [#"{"state":"active"}"#, #"{"label":"x"}"#, #"{"rollout_percent":5}"#] {
            let r = try fx.curl("/admin/models/\(new)", fx.auth + ["-X", "PATCH", "-H", "Content-Type: application/json", "--data-binary", body])
            #expect(r.status == 409 && r.errorCode == "retired", "\(body) → \(r.status) \(r.text)")
        }
        #expect(try fx.modelctl(["resume", new]).status == 1)
        #expect(try fx.latestID("sdk=1.5") == old)
    }

    @Test func patch_changesTheDocumentAndItsETag_sdkMaxNarrowsSelection_SPEC4_1_7_1() throws {
        let old = try #require(try fx.publish(try fx.randomFile(), sdkMin: "1.0")["id"] as? String)
        let new = try #require(try fx.publish(try fx.randomFile(), sdkMin: "1.0", ["--label", "first"])["id"] as? String)
        let before = try fx.curl("/latest?sdk=1.5")
        let etag = try #require(before.header("ETag"))
        let patch = { (body: String) in
            try self.fx.curl("/admin/models/\(new)", self.fx.auth + ["-X", "PATCH", "-H", "Content-Type: application/json", "--data-binary", body])
        }
        #expect(try patch(#"{"label":"second"}"#).status == 200)
        // A cached copy revalidated with the old ETag gets the new document, not a 304.
        let after = try fx.curl("/latest?sdk=1.5", ["-H", "If-None-Match: \(etag)"])
        #expect(after.status == 200 && after.json?["label"] as? String == "second")
        #expect(after.header("ETag") != etag)
        #expect(try patch(#"{"sdk_max":"1.5"}"#).status == 200)
        #expect(try fx.latestID("sdk=1.4.999999") == new)
        #expect(try fx.latestID("sdk=1.5") == old, "sdk_max is exclusive after a PATCH too")
        #expect(try patch(#"{"sdk_max":"0.5"}"#).errorCode == "invalid_parameter")
        #expect(try patch(#"{"rollout_percent":101}"#).errorCode == "invalid_parameter")
        #expect(try patch(#"{"state":"bogus"}"#).errorCode == "invalid_parameter")
        let missing = try fx.curl("/admin/models/00000000-0000-4000-8000-000000000000", fx.auth + ["-X", "PATCH", "-H", "Content-Type: application/json", "--data-binary", #"{"label":"x"}"#])
        #expect(missing.status == 404 && missing.errorCode == "not_found", "\(missing.status) \(missing.text)")
        #expect(try fx.latestID("sdk=1.0") == new, "refused PATCHes changed nothing")
    }

    @Test func partialRollout_bucketsMatchSHA256Oracle_privateCaching_SPEC3_4_1() throws {
        let base = try #require(try fx.publish(try fx.randomFile(), sdkMin: "1.0")["id"] as? String)
        let canary = try #require(try fx.publish(try fx.randomFile(), sdkMin: "1.0", ["--rollout", "30"])["id"] as? String)
        let clients = (0..<40).map { "client-\($0)" } + ["A", "device:42", "550e8400-e29b-41d4-a716-446655440000"]
        let buckets = try RolloutOracle.buckets(releaseID: canary, clientIDs: clients)
        var inside = 0
        for c in clients {
            let bucket = try #require(buckets[c])
            let r = try fx.curl("/latest?sdk=1.0&client_id=\(c.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)")
            #expect(r.status == 200)
            #expect(r.json?["id"] as? String == (bucket < 30 ? canary : base), "client \(c) bucket \(bucket)")
            #expect(r.header("Cache-Control") == "private, max-age=60", "the answer depended on client_id")
            if bucket < 30 { inside += 1 }
        }
        #expect(inside > 0 && inside < clients.count, "the sample has clients on both sides")

        // Without client_id: never in a partial rollout.
        let anonymous = try fx.curl("/latest?sdk=1.0")
        #expect(anonymous.json?["id"] as? String == base)
        // The URL alone decides an anonymous answer, so a CDN may share it (SPEC §4.1).
        #expect(anonymous.header("Cache-Control") == "public, max-age=60")

        // Widening the rollout keeps everyone already in it (same buckets) and adds the rest.
        #expect(try fx.modelctl(["rollout", canary, "100"]).status == 0)
        for c in clients.prefix(5) { #expect(try fx.latestID("sdk=1.0&client_id=\(c)") == canary) }
        let full = try fx.curl("/latest?sdk=1.0&client_id=client-1")
        #expect(full.header("Cache-Control") == "public, max-age=60")
        #expect(try fx.modelctl(["rollout", canary, "0"]).status == 0)
        for c in clients.prefix(5) { #expect(try fx.latestID("sdk=1.0&client_id=\(c)") == base) }
    }
}

import ChildProcesses
import Foundation
import HTTPTestSupport
import Testing

/// SPEC §15.1 origin isolation through the real modeld and modelctl: every `/models/` answer
/// carries `Content-Security-Policy: sandbox` and `nosniff`, renderable content types are refused
/// at publish, and a catalog's older renderable type is served as bytes.
@Suite(.serialized) final class ModelFileIsolationTests {
    private static let isolation = ["Content-Security-Policy": "sandbox", "X-Content-Type-Options": "nosniff"]

    /// An HTML page published as text/plain (allowed): its answers, whatever the status.
    @Test func everyModelFileAnswer_carriesSandboxAndNosniff_SPEC15_1() throws {
        let fx = try CatalogFixture()
        let page = Array("<!doctype html><script>document.title = 'ran'</script>".utf8)
        let publish = try HTTP.request(fx.server.port, "POST", "/admin/models?sdk_min=1.0&ext=bin&content_type=text%2Fplain",
                                       headers: [("Authorization", "Bearer \(fx.server.token)")], body: page)
        let release = try #require(HTTP.json(publish), "\(publish.status) \(publish.text)")
        let path = "/models/" + (try #require(release["file"] as? String))
        let etag = try #require(HTTP.get(fx.server.port, path).headers["ETag"])

        let probes: [(String, String, [(String, String)], Int)] = [
            ("GET", path, [], 200), ("HEAD", path, [], 200), ("GET", path, [("Range", "bytes=0-9")], 206),
            ("GET", path, [("Range", "bytes=0-1,4-5")], 206), ("GET", path, [("If-None-Match", etag)], 304),
            ("GET", path, [("If-Match", "\"other\"")], 412), ("GET", path, [("Range", "bytes=9999-")], 416),
            ("GET", "/models/nothing.bin", [], 404), ("PUT", path, [], 405),
        ]
        for (method, target, headers, status) in probes {
            let r = try HTTP.request(fx.server.port, method, target, headers: headers)
            #expect(r.status == status, "\(method) \(target) \(headers)")
            for (name, value) in Self.isolation {
                #expect(r.headers[name] == value, "\(method) \(target) \(headers) → \(r.status): \(name) is \(r.headers[name] ?? "absent")")
            }
        }
        #expect(try HTTP.get(fx.server.port, path).headers["Content-Type"] == "text/plain")
    }

    /// The admin API answers 400 `invalid_parameter`; modelctl, online or offline, refuses it
    /// before a byte is sent with the same rule (exit 2 naming the flag and the cause, the
    /// release contract's one rule: docs/decisions/release-contract.md); nothing is kept.
    /// (ContentTypeTests walks the whole list.)
    @Test func renderableContentType_isRefusedAtPublish_400_SPEC15_1() throws {
        let fx = try CatalogFixture()
        let file = try fx.randomFile()
        for type in ["text/html", "application/xhtml+xml", "image/svg+xml", "text/xml", "application/javascript",
                     "text/html; charset=utf-8", "application/octet-stream, text/html"] {
            let query = "/admin/models?sdk_min=1.0&ext=bin&content_type=" + type.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let api = try fx.curl(query, fx.auth + ["--data-binary", "@\(file.path)"])
            #expect(api.status == 400 && api.errorCode == "invalid_parameter", "\(type): \(api.status) \(api.text)")
            #expect((api.json?["message"] as? String)?.hasPrefix("content_type: ") == true, "\(type): \(api.text)")

            let online = try fx.modelctl(["publish", file.path, "--sdk-min", "1.0", "--content-type", type])
            #expect(online.status == 2 && online.stderr.contains("--content-type '\(type)': "), "\(type): \(online.stderr)")
            let offline = try ChildProcess.run(TestBinaries.modelctl, ["publish", file.path, "--sdk-min", "1.0", "--content-type", type,
                                                                       "--models-dir", fx.server.modelsDir.path], directory: fx.scratch)
            #expect(offline.status == 2 && offline.stderr.contains("--content-type '\(type)': "), "\(type): \(offline.stderr)")
        }
        #expect((try fx.curl("/admin/models", fx.auth).json?["releases"] as? [Any])?.isEmpty == true, "nothing was published")
        #expect(fx.modelsEntries().tmp.isEmpty)
    }

    /// A release recorded as text/html before v5 (written here behind the server's back) keeps
    /// its record but is sent as bytes: a browser downloads it rather than rendering it.
    @Test func olderRenderableRelease_isServedAsOctetStream_SPEC15_1() throws {
        let fx = try CatalogFixture()
        let release = try fx.publish(try fx.randomFile())
        let id = try #require(release["id"] as? String)
        var catalog = try fx.catalogOnDisk()
        var releases = try #require(catalog["releases"] as? [[String: Any]])
        releases[0]["content_type"] = "text/html"
        catalog["releases"] = releases
        try fx.replaceCatalogAtomically(try JSONSerialization.data(withJSONObject: catalog))
        #expect(try ModeldServer.eventually(within: 5) {
            try fx.curl("/admin/models/\(id)", fx.auth).json?["content_type"] as? String == "text/html"
        }, "the edited catalog was not reloaded")

        let r = try HTTP.get(fx.server.port, "/models/" + (try #require(release["file"] as? String)))
        #expect(r.status == 200 && r.headers["Content-Type"] == "application/octet-stream")
        #expect(r.headers["Content-Security-Policy"] == "sandbox" && r.headers["X-Content-Type-Options"] == "nosniff")
    }
}

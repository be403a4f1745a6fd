import ChildProcesses
import Foundation
import HTTPTestSupport
import HTTPWire
import ModeldSigning
import SelectionVectors
import Testing

/// `POST /check` against the real modeld (SPEC §17.2): every answer byte-for-byte what
/// `GET /latest` answers for that channel and parameters, over the shared selection vectors
/// (Tests/Fixtures/selection-cases.json); events stored once; bad bodies refused with nothing stored.
@Suite(.serialized) final class CheckServerTests {
    static let channels = ["stable", "beta", "old", "nope"]

    /// A server whose catalog is the selection vectors' (model files absent: only checks are asked).
    private func vectorServer(environment: [String: String] = [:]) throws -> (ModeldServer, SelectionVectors) {
        let vectors = try SelectionVectors.load()
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("check-it-\(UUID().uuidString)")
        let models = root.appendingPathComponent("models")
        try FileManager.default.createDirectory(at: models, withIntermediateDirectories: true)
        try Data(vectors.catalogJSON).write(to: models.appendingPathComponent("catalog.json"))
        return (try ModeldServer(environment: environment, root: root), vectors)
    }

    private static func deviceQuery(_ c: SelectionVectors.Case) -> String {
        var q = "sdk=\(c.sdk)"
        if let p = c.device.platform { q += "&platform=\(p)" }
        if let os = c.device.os { q += "&os=\(os)" }
        if let ram = c.device.ramMB { q += "&ram_mb=\(ram)" }
        if let d = c.device.device { q += "&device=\(d.replacingOccurrences(of: ",", with: "%2C"))" }
        return q
    }

    private static func post(_ target: String, _ body: String, headers: String = "") -> String {
        "POST \(target) HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n\(headers)Content-Length: \(body.utf8.count)\r\n\r\n\(body)"
    }

    private static func checkBody(_ channels: [String], clientID: String?) -> String {
        let list = channels.map { "\"\($0)\"" }.joined(separator: ",")
        return clientID.map { #"{"client_id":"\#($0)","channels":[\#(list)]}"# } ?? #"{"channels":[\#(list)]}"#
    }

    @Test func everyAnswerIsWhatLatestAnswers_selectionVectors_SPEC17_2() throws {
        let (server, vectors) = try vectorServer()
        let client = try RawClient(port: server.port, timeoutSeconds: 60)
        defer { client.close() }
        var differences: [String] = [], checked = 0
        for c in vectors.cases {
            let query = Self.deviceQuery(c)
            let id = c.clientID.map { "&client_id=\($0.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)" } ?? ""
            // Pipelined: one /latest per channel, then the /check of all of them.
            var requests = Self.channels.map { "GET /latest?\(query)&channel=\($0)\(id) HTTP/1.1\r\nHost: t\r\n\r\n" }.joined()
            requests += Self.post("/check?\(query)", Self.checkBody(Self.channels, clientID: c.clientID))
            try client.send(requests)
            var expected = Array(#"{"answers":{"#.utf8)
            for (i, channel) in Self.channels.enumerated() {
                let latest = try client.readResponse()
                try #require(latest.status == 200 || latest.status == 404, "\(c.name) \(channel): \(latest.status)")
                if channel == c.channel {
                    let id = latest.status == 200 ? (try JSONSerialization.jsonObject(with: Data(latest.body)) as? [String: Any])?["id"] as? String : nil
                    #expect(id == c.expect?.id, "\(c.name): /latest answered \(id ?? "no_model")")
                }
                expected += Array("\(i > 0 ? "," : "")\"\(channel)\":".utf8) + (latest.status == 200 ? latest.body : Array("null".utf8))
            }
            expected += Array("}}".utf8)
            let check = try client.readResponse()
            #expect(check.status == 200 && check.headers["Cache-Control"] == "no-store", "\(c.name): \(check.status)")
            if check.body != expected, differences.count < 5 {
                differences.append("\(c.name):\n  check  \(String(decoding: check.body, as: UTF8.self))\n  latest \(String(decoding: expected, as: UTF8.self))")
            }
            checked += 1
        }
        #expect(differences.isEmpty, "\(differences.joined(separator: "\n"))")
        #expect(checked == vectors.cases.count && checked > 500)
        // Every channel of every check counted as one check; the route is `check`. An exchange is
        // counted once its response is written, which can be just after the client read it.
        var metrics = ""
        let counted = ModeldServer.eventually(within: 10) {
            metrics = (try? EventsHTTP.request(server.port, "GET", "/metrics").text) ?? ""
            return metrics.contains(#"modeld_http_requests_total{route="check",status="200"} \#(checked)"#)
        }
        #expect(counted, "\(metrics.prefix(400))")
        #expect(metrics.contains("modeld_check_channels_total \(checked * Self.channels.count)\n"), "\(metrics.prefix(400))")
    }

    @Test func signedLikeLatest_andGzip_SPEC17_2_SPEC12() throws {
        let signing = try SigningFixture()
        defer { signing.remove() }
        try signing.generate("k1")
        let vectors = try SelectionVectors.load()
        let models = signing.dir.appendingPathComponent("models")
        try FileManager.default.createDirectory(at: models, withIntermediateDirectories: true)
        try Data(vectors.catalogJSON).write(to: models.appendingPathComponent("catalog.json"))
        let server = try signing.server(["k1"], models: models)
        let body = Array(Self.checkBody(["stable", "beta", "nope"], clientID: "c-1").utf8)
        let plain = try EventsHTTP.request(server.port, "POST", "/check?sdk=2.3", headers: [("Content-Type", "application/json")], body: body)
        #expect(plain.status == 200)
        let keyids = try signing.trusted(["k1"]).verifyLatest(paramsHeader: plain.headers["modeld-signature-params"],
                                                              signatureHeader: plain.headers["modeld-signature"], body: plain.body,
                                                              now: SigningFixture.now)
        #expect(keyids.count == 1)
        let answers = try #require(plain.json["answers"] as? [String: Any])
        #expect(Set(answers.keys) == ["stable", "beta", "nope"] && answers["nope"] is NSNull)
        // gzip when asked: the signature stays over the identity body.
        let gzip = try EventsHTTP.request(server.port, "POST", "/check?sdk=2.3",
                                          headers: [("Content-Type", "application/json"), ("Accept-Encoding", "gzip")], body: body)
        #expect(gzip.headers["content-encoding"] == "gzip")
        let inflated = try Gzip.inflate(gzip.body, limit: 1 << 20)
        #expect(inflated == plain.body)
        #expect(try signing.trusted(["k1"]).verifyLatest(paramsHeader: gzip.headers["modeld-signature-params"],
                                                         signatureHeader: gzip.headers["modeld-signature"], body: inflated,
                                                         now: SigningFixture.now).count == 1)
    }

    @Test func eventsStoredOnce_retryIsDuplicate_SPEC17_2_SPEC4_2() throws {
        let (server, _) = try vectorServer()
        let events = [EventsFixture.event(), EventsFixture.event("shown")].joined(separator: ",")
        let body = Array(#"{"client_id":"c-ev","channels":["stable","beta"],"batch_id":"b-check-1","events":[\#(events)]}"#.utf8)
        let first = try EventsHTTP.postEvents(server.port, body, target: "/check?sdk=2.3", gzip: true)
        #expect(first.status == 200, "\(first.text)")
        #expect(first.text.hasSuffix(#"},"events":{"accepted":2,"duplicate":false}}"#), "\(first.text)")
        #expect((first.json["answers"] as? [String: Any])?.count == 2)
        #expect(EventsFixture.storedObjects(server.dataDir, batchID: "b-check-1").count == 2)   // durable before the answer
        let retry = try EventsHTTP.postEvents(server.port, body, target: "/check?sdk=2.3")
        #expect(retry.status == 200)
        #expect(retry.text.hasSuffix(#"},"events":{"accepted":0,"duplicate":true}}"#), "\(retry.text)")
        #expect(EventsFixture.storedObjects(server.dataDir, batchID: "b-check-1").count == 2)
        let stored = EventsFixture.storedObjects(server.dataDir, batchID: "b-check-1")
        #expect(stored.allSatisfy { $0["client_id"] as? String == "c-ev" && $0["sdk"] as? String == "2.3" }, "\(stored)")
        // Without a batch there is no `events` member.
        let plain = try EventsHTTP.postEvents(server.port, Array(#"{"channels":["stable"]}"#.utf8), target: "/check?sdk=2.3")
        #expect(plain.status == 200 && plain.json["events"] == nil)
    }

    @Test func badRequests_rightCodes_nothingStored_SPEC17_2() throws {
        let (server, _) = try vectorServer()
        let many = (0...256).map { "\"c\($0)\"" }.joined(separator: ",")
        let event = EventsFixture.event()
        let cases: [(String, String, String, Int, String)] = [
            ("no channels", "/check?sdk=2.3", #"{"batch_id":"b1","events":[\#(event)]}"#, 400, "invalid_parameter"),
            ("empty channels", "/check?sdk=2.3", #"{"channels":[],"batch_id":"b2","events":[\#(event)]}"#, 400, "invalid_parameter"),
            ("257 channels", "/check?sdk=2.3", #"{"channels":[\#(many)],"batch_id":"b3","events":[\#(event)]}"#, 400, "invalid_parameter"),
            ("duplicate", "/check?sdk=2.3", #"{"channels":["stable","stable"],"batch_id":"b4","events":[\#(event)]}"#, 400, "invalid_parameter"),
            ("bad name", "/check?sdk=2.3", #"{"channels":["Stable"],"batch_id":"b5","events":[\#(event)]}"#, 400, "invalid_parameter"),
            ("not strings", "/check?sdk=2.3", #"{"channels":[1],"batch_id":"b6","events":[\#(event)]}"#, 400, "invalid_parameter"),
            ("bad installed", "/check?sdk=2.3", #"{"channels":["stable"],"installed":{"stable":"xyz"},"batch_id":"b7","events":[\#(event)]}"#, 400, "invalid_parameter"),
            ("bad sdk", "/check?sdk=2.x", #"{"channels":["stable"],"batch_id":"b8","events":[\#(event)]}"#, 400, "invalid_sdk"),
            ("no sdk", "/check", #"{"channels":["stable"],"batch_id":"b9","events":[\#(event)]}"#, 400, "invalid_sdk"),
            ("bad device", "/check?sdk=2.3&ram_mb=-1", #"{"channels":["stable"],"batch_id":"b10","events":[\#(event)]}"#, 400, "invalid_parameter"),
            ("bad event", "/check?sdk=2.3", #"{"channels":["stable"],"batch_id":"b11","events":[\#(event),{"name":"x"}]}"#, 400, "invalid_event"),
            ("events without batch_id", "/check?sdk=2.3", #"{"channels":["stable"],"events":[\#(event)]}"#, 400, "invalid_batch"),
            ("bad json", "/check?sdk=2.3", #"{"channels":["stable"],"batch_id":"b12","events":["#, 400, "invalid_json"),
            ("not an object", "/check?sdk=2.3", "[1]", 400, "invalid_json"),
        ]
        for (name, target, body, status, code) in cases {
            let r = try EventsHTTP.postEvents(server.port, Array(body.utf8), target: target)
            #expect(r.status == status && r.errorCode == code, "\(name): \(r.status) \(r.text)")
            #expect(r.headers["modeld-signature"] == nil)
        }
        let tooMany = try EventsHTTP.postEvents(server.port, Array(#"{"channels":["stable"],"batch_id":"b13","events":[\#(Array(repeating: event, count: 1001).joined(separator: ","))]}"#.utf8),
                                                target: "/check?sdk=2.3")
        #expect(tooMany.status == 413 && tooMany.errorCode == "too_many_events", "\(tooMany.status)")
        let media = try EventsHTTP.postEvents(server.port, Array(#"{"channels":["stable"]}"#.utf8), target: "/check?sdk=2.3", contentType: "text/plain")
        #expect(media.status == 415 && media.errorCode == "unsupported_media_type")
        var badGzip = try EventsHTTP.request(server.port, "POST", "/check?sdk=2.3", headers: [("Content-Type", "application/json"), ("Content-Encoding", "gzip")],
                                             body: Array("not gzip".utf8))
        #expect(badGzip.status == 400 && badGzip.errorCode == "invalid_gzip")
        badGzip = try EventsHTTP.request(server.port, "GET", "/check?sdk=2.3")
        #expect(badGzip.status == 405)
        #expect(EventsFixture.storedLines(server.dataDir).isEmpty)
        #expect(try EventsHTTP.metric(server.port, "modeld_check_channels_total") == 0)
    }
}

import ChildProcesses
import Foundation
import HTTPTestSupport
import HTTPWire
import Testing

// MARK: - helpers shared by the Events*Tests suites

/// One HTTP/1.1 exchange over a fresh loopback socket (`Connection: close`), with bounded
/// waits (socket time-outs). A raw client: no hidden retries, no transparent decompression,
/// and it still reads the answer when the server refuses a body it has not read.
struct HTTPReply {
    let status: Int
    /// Lower-cased names.
    let headers: [String: String]
    let body: [UInt8]
    var text: String { String(decoding: body, as: UTF8.self) }
    var json: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] ?? [:]
    }
    var errorCode: String? { json["error"] as? String }
}

enum HTTPClientError: Error, CustomStringConvertible {
    case io(String)
    var description: String { switch self { case .io(let s): s } }
}

enum EventsHTTP {
    static func request(_ port: Int, _ method: String, _ target: String, headers: [(String, String)] = [],
                        body: [UInt8] = [], timeout: Int = 10, beforeLastByte: (() -> Void)? = nil) throws -> HTTPReply {
        let client = try RawClient(port: port, timeoutSeconds: timeout)
        let fd = client.fd
        var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for (n, v) in headers { head += "\(n): \(v)\r\n" }
        if method == "POST" || method == "PUT" || !body.isEmpty { head += "Content-Length: \(body.count)\r\n" }
        head += "\r\n"
        // Send; stop early (no error) if the peer stops reading or has already answered.
        let out = Array(head.utf8) + body
        var sent = 0
        while sent < out.count {
            if let beforeLastByte, sent == out.count - 1 { beforeLastByte() }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if sent >= head.utf8.count, poll(&p, 1, 0) > 0 { break }
            let end = beforeLastByte != nil && sent < out.count - 1 ? out.count - 1 : out.count
            let n = out[sent..<end].withUnsafeBytes { send(fd, $0.baseAddress, min($0.count, 65536), Int32(MSG_NOSIGNAL)) }
            if n <= 0 { break }
            sent += n
        }
        // Everything until the server closes; a reset after the answer (the server refused the
        // rest of the body) still leaves the answer.
        let data = client.readToEnd()
        guard !data.isEmpty else { throw HTTPClientError.io("no answer: errno \(errno)") }
        return try parse(data)
    }

    static func parse(_ data: [UInt8]) throws -> HTTPReply {
        let sep: [UInt8] = [13, 10, 13, 10]
        guard let end = (0..<max(0, data.count - 3)).first(where: { Array(data[$0..<$0 + 4]) == sep }) else {
            throw HTTPClientError.io("no response head in \(data.count) bytes")
        }
        let lines = String(decoding: data[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let status = Int(lines[0].split(separator: " ")[1]) ?? 0
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var body = Array(data[(end + 4)...])
        if let cl = headers["content-length"].flatMap(Int.init), body.count > cl { body = Array(body[..<cl]) }
        return HTTPReply(status: status, headers: headers, body: body)
    }

    static func postEvents(_ port: Int, _ body: [UInt8], target: String = "/events?sdk=2.3", gzip: Bool = false,
                           contentType: String = "application/json", timeout: Int = 10) throws -> HTTPReply {
        var headers = [("Content-Type", contentType)]
        if gzip { headers.append(("Content-Encoding", "gzip")) }
        return try request(port, "POST", target, headers: headers, body: gzip ? Gzip.compress(body) : body, timeout: timeout)
    }

    /// The value of an unlabelled (or exactly labelled) sample in `/metrics`.
    static func metric(_ port: Int, _ name: String) throws -> Double {
        let text = try request(port, "GET", "/metrics").text
        for line in text.split(separator: "\n") where line.hasPrefix(name + " ") {
            return Double(line.split(separator: " ").last!) ?? .nan
        }
        throw HTTPClientError.io("metric \(name) missing")
    }
}

/// Batch bodies and what the server stored.
enum EventsFixture {
    static func batch(_ batchID: String, clientID: String? = "client-1", events: [String]) -> [UInt8] {
        var s = #"{"batch_id":"\#(batchID)""#
        if let clientID { s += #","client_id":"\#(clientID)""# }
        s += #","events":[\#(events.joined(separator: ","))]}"#
        return Array(s.utf8)
    }

    static func event(_ name: String = "upsell_prompt", model: String = "m-a", outcome: String = "purchased",
                      extra: String = "") -> String {
        #"{"name":"\#(name)","ts":"2026-11-21T10:00:00Z","model_id":"\#(model)","outcome":"\#(outcome)","value":1.0,"props":{"battery":0.8,"charging":true}\#(extra)}"#
    }

    /// Whether a segment line is a commit record `{"commit":{"lines":K,"bytes":B}}` (not an event).
    static func isCommitRecord(_ line: Substring) -> Bool {
        line.hasPrefix(#"{"commit":{"lines":"#) && !line.contains(#""batch_id""#)
    }

    /// Every stored event line of every segment under `data/events`, in file order (commit
    /// records left out).
    static func storedLines(_ dataDir: URL) -> [String] {
        let root = dataDir.appendingPathComponent("events")
        let fm = FileManager.default
        var lines: [String] = []
        for day in ((try? fm.contentsOfDirectory(atPath: root.path)) ?? []).sorted() {
            let dir = root.appendingPathComponent(day)
            for name in ((try? fm.contentsOfDirectory(atPath: dir.path)) ?? []).sorted() where name.hasSuffix(".jsonl") {
                let text = (try? String(contentsOf: dir.appendingPathComponent(name), encoding: .utf8)) ?? ""
                lines += text.split(separator: "\n", omittingEmptySubsequences: true).filter { !isCommitRecord($0) }.map(String.init)
            }
        }
        return lines
    }

    static func storedObjects(_ dataDir: URL, batchID: String? = nil) -> [[String: Any]] {
        storedLines(dataDir).compactMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] }
            .filter { batchID == nil || $0["batch_id"] as? String == batchID }
    }

    static func modelctl(_ arguments: [String]) throws -> ProcessResult {
        try ChildProcess.run(TestBinaries.modelctl, arguments, timeout: .seconds(60))
    }
}

// MARK: - POST /events and POST /latest against the real server (SPEC §4.2, §5)

@Suite(.serialized) final class EventsServerTests {
    @Test func storedLines_carryServerFieldsAndUnknownFieldsVerbatim_SPEC5() throws {
        let server = try ModeldServer(environment: ["MODELD_INSTANCE_ID": "it-fields"])
        let unknown = #","x_custom":{"nested":[1,2.50,{"k":null}],"s":"é\u00e9"}"#
        let body = EventsFixture.batch("fields-1", clientID: "c-42",
                                       events: [EventsFixture.event(), EventsFixture.event(outcome: "dismissed", extra: unknown)])
        let reply = try EventsHTTP.postEvents(server.port, body)
        #expect(reply.status == 200, "\(reply.text)")
        #expect(reply.json["accepted"] as? Int == 2 && reply.json["duplicate"] as? Bool == false)
        #expect(reply.headers["cache-control"] == "no-store")

        let lines = EventsFixture.storedLines(server.dataDir)
        try #require(lines.count == 2, "\(lines)")
        #expect(lines[1].contains(unknown.dropFirst()), "unknown field kept byte for byte: \(lines[1])")
        for (seq, line) in lines.enumerated() {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(object["batch_id"] as? String == "fields-1")
            #expect(object["client_id"] as? String == "c-42")
            #expect(object["sdk"] as? String == "2.3")
            #expect(object["seq"] as? Int == seq)
            #expect(object["instance"] as? String == "it-fields")
            let receivedAt = try #require(object["received_at"] as? String)
            #expect(receivedAt.hasSuffix("Z") && receivedAt.count >= 20, "\(receivedAt)")
            #expect(object["name"] as? String == "upsell_prompt")
            #expect(object["ts"] as? String == "2026-11-21T10:00:00Z")
        }
    }

    @Test func idleSegment_rotatedByAge_SPEC9_1() throws {
        let server = try ModeldServer(environment: ["MODELD_EVENTS_SEGMENT_MAX_SECONDS": "1"])
        let reply = try EventsHTTP.postEvents(server.port, EventsFixture.batch("age-1", events: [EventsFixture.event()]))
        #expect(reply.status == 200, "\(reply.text)")
        // No further traffic: modeld itself seals the segment (index written) and opens the next.
        let rotated = ModeldServer.eventually(within: 10) {
            let segments = EventsFixture.segmentFiles(server.dataDir)
            return segments.count == 2 && FileManager.default.fileExists(atPath: segments[0].path + ".idx")
        }
        #expect(rotated, "\(EventsFixture.segmentFiles(server.dataDir))")
        let later = try EventsHTTP.postEvents(server.port, EventsFixture.batch("age-2", events: [EventsFixture.event()]))
        #expect(later.status == 200, "\(later.text)")
        #expect(EventsFixture.storedObjects(server.dataDir, batchID: "age-2").count == 1)
        #expect(EventsFixture.storedLines(server.dataDir).count == 2)
    }

    @Test func gzipUpload_isStoredLikeIdentity_SPEC4_2() throws {
        let server = try ModeldServer()
        let body = EventsFixture.batch("gz-1", events: (0..<3).map { _ in EventsFixture.event() })
        let reply = try EventsHTTP.postEvents(server.port, body, gzip: true)
        #expect(reply.status == 200, "\(reply.text)")
        #expect(reply.json["accepted"] as? Int == 3)
        #expect(EventsFixture.storedObjects(server.dataDir, batchID: "gz-1").count == 3)
    }

    @Test func duplicateBatch_isNotStoredAgain_alsoAfterRestart_SPEC4_2() throws {
        let server = try ModeldServer()
        let body = EventsFixture.batch("dup-1", events: [EventsFixture.event(), EventsFixture.event()])
        let first = try EventsHTTP.postEvents(server.port, body)
        #expect(first.status == 200 && first.json["accepted"] as? Int == 2, "\(first.text)")
        let again = try EventsHTTP.postEvents(server.port, body, gzip: true)
        #expect(again.status == 200, "\(again.text)")
        #expect(again.json["accepted"] as? Int == 0 && again.json["duplicate"] as? Bool == true, "\(again.text)")
        // Same batch_id, another client: a different key, stored.
        let other = try EventsHTTP.postEvents(server.port, EventsFixture.batch("dup-1", clientID: "client-2", events: [EventsFixture.event()]))
        #expect(other.json["accepted"] as? Int == 1, "\(other.text)")

        server.signal(SIGTERM)
        #expect(server.waitForExit(within: 15) == 0)
        try server.restart()
        let afterRestart = try EventsHTTP.postEvents(server.port, body, target: "/latest?sdk=2.3")
        #expect(afterRestart.status == 200, "\(afterRestart.text)")
        let events = afterRestart.json["events"] as? [String: Any]
        #expect(events?["accepted"] as? Int == 0 && events?["duplicate"] as? Bool == true, "\(afterRestart.text)")
        let stored = EventsFixture.storedObjects(server.dataDir, batchID: "dup-1")
        #expect(stored.filter { $0["client_id"] as? String == "client-1" }.count == 2)
        #expect(stored.filter { $0["client_id"] as? String == "client-2" }.count == 1)
        #expect(try EventsHTTP.metric(server.port, #"modeld_events_total{result="duplicate"}"#) == 2)
    }

    @Test func invalidEvent_storesNothingOfItsBatch_SPEC4_2() throws {
        let server = try ModeldServer()
        let body = EventsFixture.batch("bad-1", events: [EventsFixture.event(), EventsFixture.event(),
                                                         #"{"name":"x","ts":"yesterday-ish"}"#, EventsFixture.event()])
        let reply = try EventsHTTP.postEvents(server.port, body)
        #expect(reply.status == 400)
        #expect(reply.errorCode == "invalid_event")
        let message = try #require(reply.json["message"] as? String)
        #expect(message.hasPrefix("events[2].ts: "), "\(message)")
        #expect(reply.headers["cache-control"] == "no-store")
        // A later good batch commits; the bad one is still absent.
        #expect(try EventsHTTP.postEvents(server.port, EventsFixture.batch("good-1", events: [EventsFixture.event()])).status == 200)
        #expect(EventsFixture.storedObjects(server.dataDir, batchID: "bad-1").isEmpty)
        #expect(EventsFixture.storedObjects(server.dataDir).count == 1)
        #expect(try EventsHTTP.metric(server.port, #"modeld_events_total{result="rejected"}"#) == 4)
    }

    @Test func batchAndBodyErrors_answerTheirCodesAndStoreNothing_SPEC4_2() throws {
        let server = try ModeldServer(environment: ["MODELD_LIMITS_MAX_EVENTS_PER_BATCH": "5",
                                                    "MODELD_LIMITS_MAX_EVENT_BODY_BYTES": "65536"])
        let port = server.port
        let good = EventsFixture.batch("e-1", events: [EventsFixture.event()])
        func check(_ reply: HTTPReply, _ status: Int, _ code: String, sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(reply.status == status, "\(reply.text)", sourceLocation: sourceLocation)
            #expect(reply.errorCode == code, "\(reply.text)", sourceLocation: sourceLocation)
            #expect(reply.json["message"] is String, sourceLocation: sourceLocation)
            #expect(reply.headers["cache-control"] == "no-store", sourceLocation: sourceLocation)
        }
        check(try EventsHTTP.postEvents(port, good, contentType: "text/plain"), 415, "unsupported_media_type")
        check(try EventsHTTP.request(port, "POST", "/events", headers: [("Content-Type", "application/json"), ("Content-Encoding", "br")], body: good),
              415, "unsupported_media_type")
        check(try EventsHTTP.postEvents(port, EventsFixture.batch("e-2", events: (0..<6).map { _ in EventsFixture.event() })),
              413, "too_many_events")
        // Compressed body over max_event_body_bytes: incompressible bytes, gzipped.
        var random = [UInt8](repeating: 0, count: 100_000)
        for i in random.indices { random[i] = UInt8.random(in: 0...255) }
        let bigGzip = Gzip.compress(random)
        try #require(bigGzip.count > 65536)
        check(try EventsHTTP.request(port, "POST", "/events", headers: [("Content-Type", "application/json"), ("Content-Encoding", "gzip")],
                                     body: bigGzip), 413, "body_too_large")
        check(try EventsHTTP.request(port, "POST", "/events", headers: [("Content-Type", "application/json"), ("Content-Encoding", "gzip")],
                                     body: Array(good)), 400, "invalid_gzip")
        check(try EventsHTTP.request(port, "POST", "/events", headers: [("Content-Type", "application/json"), ("Content-Encoding", "gzip")],
                                     body: Array(Gzip.compress(good).dropLast(9))), 400, "invalid_gzip")
        check(try EventsHTTP.postEvents(port, Array(#"{"batch_id":"e-3","events":[{"name":"#.utf8)), 400, "invalid_json")
        check(try EventsHTTP.postEvents(port, Array(#"{"events":[]}"#.utf8)), 400, "invalid_batch")
        check(try EventsHTTP.postEvents(port, Array(#"{"batch_id":"no spaces","events":[]}"#.utf8)), 400, "invalid_batch")
        check(try EventsHTTP.postEvents(port, Array(#"{"batch_id":"e-4","events":{}}"#.utf8)), 400, "invalid_batch")
        check(try EventsHTTP.postEvents(port, Array(#"[1,2]"#.utf8)), 400, "invalid_batch")
        check(try EventsHTTP.postEvents(port, good, target: "/latest?sdk=banana"), 400, "invalid_sdk")
        #expect(EventsFixture.storedLines(server.dataDir).isEmpty)
        // The server still works, and `events: []` is valid.
        let empty = try EventsHTTP.postEvents(port, Array(#"{"batch_id":"e-5","events":[]}"#.utf8))
        #expect(empty.status == 200 && empty.json["accepted"] as? Int == 0, "\(empty.text)")
        #expect(try EventsHTTP.postEvents(port, good).status == 200)
        #expect(EventsFixture.storedLines(server.dataDir).count == 1)
    }

    @Test func latest_answersDocumentWithEvents_and404NoModelStillStores_SPEC4_2() throws {
        let server = try ModeldServer()
        let ok = try EventsHTTP.postEvents(server.port, EventsFixture.batch("l-1", events: [EventsFixture.event()]), target: "/latest?sdk=2.3")
        #expect(ok.status == 200, "\(ok.text)")
        #expect((ok.json["url"] as? String)?.hasPrefix("http://models.example.test/models/") == true)
        #expect((ok.json["events"] as? [String: Any])?["accepted"] as? Int == 1)
        #expect(ok.headers["cache-control"] == "no-store")

        let none = try EventsHTTP.postEvents(server.port, EventsFixture.batch("l-2", events: [EventsFixture.event(), EventsFixture.event()]),
                                             target: "/latest?sdk=2.3&channel=nightly")
        #expect(none.status == 404, "\(none.text)")
        #expect(none.errorCode == "no_model")
        #expect((none.json["events"] as? [String: Any])?["accepted"] as? Int == 2, "\(none.text)")
        #expect(EventsFixture.storedObjects(server.dataDir, batchID: "l-2").count == 2)
    }
}

import Foundation
import Glibc
import HTTPTestSupport
import Testing

/// SPEC §6 access log of the real binary: one JSON object per request with the §6 fields, and
/// `bytes` = what the kernel accepted when the client went away mid-download.
@Suite(.serialized) final class OperationsAccessLogTests {
    static let demoFile = "8d26dce3-a67c-4ab7-b68c-01a5318972ab.onnx"

    private func records(_ server: ModeldServer, atLeast count: Int) -> [[String: Any]?] {
        var records: [[String: Any]?] = []
        _ = ModeldServer.eventually(within: 5) {
            records = server.accessLogRecords()
            return records.count >= count
        }
        return records
    }

    @Test func accessLog_oneJSONObjectPerRequestWithTheSection6Fields_SPEC6() throws {
        let server = try ModeldServer()
        #expect(try HTTP.get(server.port, "/latest?sdk=2.3&client_id=abc").status == 200)
        #expect(try HTTP.get(server.port, "/models/\(Self.demoFile)", headers: [("Range", "bytes=0-9")]).status == 206)
        #expect(try HTTP.request(server.port, "HEAD", "/models/\(Self.demoFile)").status == 200)
        #expect(try HTTP.get(server.port, "/healthz").status == 200)
        #expect(try HTTP.get(server.port, "/no/such?x=1").status == 404)

        let all = records(server, atLeast: 5)
        #expect(all.count == 5, "one line per request: \(all.count)")
        let lines = all.compactMap { $0 }
        #expect(lines.count == all.count, "every line is a JSON object")
        for line in lines {
            for field in ["ts", "method", "path", "route", "status", "bytes", "range", "duration_ms", "instance"] {
                #expect(line[field] != nil, "\(field) missing in \(line)")
            }
            #expect((line["ts"] as? String)?.wholeMatch(of: #/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})/#) != nil,
                    "ts is RFC 3339: \(String(describing: line["ts"]))")
            #expect(!((line["path"] as? String) ?? "?").contains("?"), "path without query")
            #expect((line["duration_ms"] as? Double).map { $0 >= 0 } == true)
            #expect((line["instance"] as? String)?.hasPrefix("it-") == true)
        }
        guard lines.count == 5 else { return }
        // Found by request, not by position: a record is written when its exchange ends, and the
        // next request (on another loop thread) may finish first.
        func line(_ method: String, _ path: String) -> [String: Any] {
            lines.first { $0["method"] as? String == method && $0["path"] as? String == path } ?? [:]
        }
        let modelPath = "/models/\(Self.demoFile)"
        let (latest, range, head) = (line("GET", "/latest"), line("GET", modelPath), line("HEAD", modelPath))
        let (health, other) = (line("GET", "/healthz"), line("GET", "/no/such"))
        #expect(latest["route"] as? String == "latest" && latest["path"] as? String == "/latest")
        #expect(latest["sdk"] as? String == "2.3" && latest["status"] as? Int == 200)
        #expect((latest["bytes"] as? Int ?? 0) > 0 && latest["range"] as? Bool == false)
        #expect(range["route"] as? String == "models" && range["status"] as? Int == 206)
        #expect(range["bytes"] as? Int == 10 && range["range"] as? Bool == true)
        #expect(range["model_id"] as? String == "8d26dce3-a67c-4ab7-b68c-01a5318972ab")
        #expect(head["method"] as? String == "HEAD" && head["bytes"] as? Int == 0)
        #expect(health["route"] as? String == "health")
        #expect(other["route"] as? String == "other" && other["status"] as? Int == 404 && other["path"] as? String == "/no/such")
    }

    @Test func accessLog_abortedDownloadLogsTheBytesTheKernelAccepted_SPEC6() throws {
        let server = try ModeldServer()
        let size = 50 << 20
        let release = try server.publishRandomModel(size: size)
        let file = try #require(release["file"] as? String)
        let id = try #require(release["id"] as? String)

        // Read a little of the response, then go away (close with unread data: a reset).
        let client = try RawClient(port: server.port, timeoutSeconds: 5, receiveBuffer: 64 << 10)
        try client.send("GET /models/\(file) HTTP/1.1\r\nHost: x\r\n\r\n")
        let head = try client.readHead()
        #expect(head.status == 200)
        #expect(head.headers["Content-Length"] == String(size))
        #expect(client.read(atLeast: 256 << 10) >= 256 << 10)
        client.close()

        var line: [String: Any]?
        #expect(ModeldServer.eventually(within: 10) {
            line = server.accessLogRecords().compactMap { $0 }.first { $0["path"] as? String == "/models/\(file)" }
            return line != nil
        })
        let bytes = line?["bytes"] as? Int ?? -1
        #expect(bytes > 0 && bytes < size, "0 < bytes < Content-Length: \(bytes)")
        #expect(line?["status"] as? Int == 200)
        #expect(line?["model_id"] as? String == id)
        // The server is fine afterwards.
        #expect(try HTTP.get(server.port, "/healthz").status == 200)
    }
}

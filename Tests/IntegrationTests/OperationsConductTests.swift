import Foundation
import Glibc
import HTTPTestSupport
import Testing

/// SPEC §10 end to end: raw bytes against the real binary. Protocol errors answer JSON with
/// `Cache-Control: no-store` and close; the server keeps serving; connections over the limit are
/// closed at once; nothing leaks (file descriptors back to baseline).
@Suite(.serialized) final class OperationsConductTests {
    /// Each case: the raw request, the status and error code it must get.
    static let protocolErrors: [(String, String, Int, String)] = [
        ("CL+TE", "POST /latest?sdk=2.3 HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400, "bad_request"),
        ("505", "GET /healthz HTTP/2.0\r\nHost: x\r\n\r\n", 505, "version_not_supported"),
        ("431", "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "a", count: 70_000))\r\n\r\n", 431, "headers_too_large"),
        ("431 fields", "GET /healthz HTTP/1.1\r\nHost: x\r\n" + (0..<101).map { "X-F\($0): v\r\n" }.joined() + "\r\n", 431, "headers_too_large"),
        ("no Host", "GET /healthz HTTP/1.1\r\n\r\n", 400, "bad_request"),
        ("TE gzip", "POST /latest?sdk=2.3 HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n", 501, "not_implemented"),
    ]

    @Test(arguments: 0..<OperationsConductTests.protocolErrors.count)
    func protocolError_answersJSONAndCloses_thenServerServes_SPEC10(_ index: Int) throws {
        let (name, request, status, code) = Self.protocolErrors[index]
        let server = try ModeldServer()
        let client = try RawClient(port: server.port, timeoutSeconds: 5)
        try client.send(request)
        let response = try client.readResponse()
        #expect(response.status == status, "\(name)")
        #expect(HTTP.json(response)?["error"] as? String == code, "\(name): \(response.text)")
        #expect(HTTP.json(response)?["message"] is String, "\(name)")
        #expect(response.headers["Cache-Control"] == "no-store", "\(name)")
        #expect(response.headers["Connection"]?.lowercased() == "close", "\(name)")
        #expect(client.isClosedByPeer(), "\(name): the connection is closed after a protocol error")
        // A normal request on a new connection.
        let next = try HTTP.get(server.port, "/latest?sdk=2.3")
        #expect(next.status == 200, "\(name): \(next.status)")
    }

    @Test func pipelinedRequests_answeredInOrder_SPEC10() throws {
        let server = try ModeldServer()
        let client = try RawClient(port: server.port)
        try client.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\nGET /nope HTTP/1.1\r\nHost: x\r\n\r\nGET /latest?sdk=2.3 HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try client.readResponse().status == 200)
        #expect(try client.readResponse().status == 404)
        #expect(try client.readResponse().status == 200)
    }

    @Test func overMaxConnections_newConnectionsClosedAtOnce_thenServesAgain_SPEC10() throws {
        let server = try ModeldServer(environment: ["MODELD_LIMITS_MAX_CONNECTIONS": "5"])
        var held: [RawClient] = []
        for _ in 0..<5 {
            let c = try RawClient(port: server.port, timeoutSeconds: 5)
            try c.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try c.readResponse().status == 200)   // accepted and kept alive
            held.append(c)
        }
        // The sixth: the kernel completes the handshake, modeld closes it at once, unanswered.
        for _ in 0..<3 {
            let extra = try RawClient(port: server.port, timeoutSeconds: 3)
            try? extra.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            let start = Date()
            #expect(extra.isClosedByPeer(), "closed, not left hanging")
            #expect(Date().timeIntervalSince(start) < 2)
        }
        // The held ones still work.
        try held[0].send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try held[0].readResponse().status == 200)

        for c in held { c.close() }
        held.removeAll()
        var status = 0
        #expect(ModeldServer.eventually(within: 5) {
            status = (try? HTTP.get(server.port, "/healthz"))?.status ?? 0
            return status == 200
        }, "serves again once the others went away")
    }

    @Test func twoThousandConnections_fileDescriptorsBackToBaseline_SPEC10() throws {
        let server = try ModeldServer()
        #expect(try HTTP.get(server.port, "/latest?sdk=2.3").status == 200)   // warm: lazily opened files
        #expect(try HTTP.get(server.port, "/models/8d26dce3-a67c-4ab7-b68c-01a5318972ab.onnx").status == 200)
        var baseline = 0
        // Settle: the warm-up connections are closed.
        _ = ModeldServer.eventually(within: 5) {
            let a = openFileDescriptors(pid: server.pid)
            usleep(50_000)
            baseline = openFileDescriptors(pid: server.pid)
            return a == baseline
        }
        #expect(baseline > 0)

        for i in 0..<2_000 {
            let c = try RawClient(port: server.port, timeoutSeconds: 5)
            switch i % 4 {
            case 0:  // a whole exchange
                try c.send("GET /latest?sdk=2.3 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                _ = try c.readResponse()
            case 1:  // a model file, closed by us before reading it
                try c.send("GET /models/8d26dce3-a67c-4ab7-b68c-01a5318972ab.onnx HTTP/1.1\r\nHost: x\r\n\r\n")
            case 2:  // half a request head
                try c.send("GET /latest?sdk=2.3 HTTP/1.1\r\nHo")
            default:  // nothing at all
                break
            }
            c.close()
        }
        var now = 0
        let back = ModeldServer.eventually(within: 10) {
            now = openFileDescriptors(pid: server.pid)
            return now <= baseline
        }
        #expect(back, "fds: baseline \(baseline), now \(now)")
        let open = try server.scrapeMetrics().value("modeld_open_connections")
        #expect(open == 1, "only the scrape: \(String(describing: open))")
    }
}

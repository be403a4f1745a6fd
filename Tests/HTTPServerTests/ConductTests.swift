import Dispatch
import Glibc
import HTTPServer
import HTTPTestSupport
import HTTPWire
import Testing

/// SPEC §10 on real sockets: rejections, keep-alive, pipelining, HTTP/1.0, 100-continue, bodies.
extension ServerSuites {
@Suite struct ConductTests {
    static let rejections: [(String, String, Int, String)] = [
        ("CL and TE", "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\nabc", 400, "bad_request"),
        ("differing CL", "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd", 400, "bad_request"),
        ("TE gzip", "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip\r\n\r\n", 501, "not_implemented"),
        ("obs-fold", "GET / HTTP/1.1\r\nHost: h\r\nX-A: a\r\n b\r\n\r\n", 400, "bad_request"),
        ("space before colon", "GET / HTTP/1.1\r\nHost : h\r\n\r\n", 400, "bad_request"),
        ("bare CR", "GET / HTTP/1.1\r\nHost: h\r\nX-A: a\rb\r\n\r\n", 400, "bad_request"),
        ("control char", "GET / HTTP/1.1\r\nHost: h\r\nX-A: \u{01}\r\n\r\n", 400, "bad_request"),
        ("bad method token", "GE(T / HTTP/1.1\r\nHost: h\r\n\r\n", 400, "bad_request"),
        ("missing Host", "GET / HTTP/1.1\r\n\r\n", 400, "bad_request"),
        ("long request line", "GET /" + String(repeating: "a", count: 8300) + " HTTP/1.1\r\nHost: h\r\n\r\n", 414, "uri_too_long"),
        ("large header section", "GET / HTTP/1.1\r\nHost: h\r\nX-A: " + String(repeating: "v", count: 5000) + "\r\n\r\n", 431, "headers_too_large"),
        ("101 fields", "GET / HTTP/1.1\r\nHost: h\r\n" + (0..<101).map { "X-\($0): v\r\n" }.joined() + "\r\n", 431, "headers_too_large"),
        ("HTTP/2.0", "GET / HTTP/2.0\r\nHost: h\r\n\r\n", 505, "version_not_supported"),
    ]

    @Test(arguments: rejections)
    func server_rejectsMalformedRequestsThenServesNewConnection_SPEC10(_ c: (String, String, Int, String)) throws {
        var config = ServerConfiguration()
        config.maxHeaderBytes = 4096
        try withServer(config, route: { _, _ in ok() }) { _, port in
            let bad = try RawClient(port: port)
            try bad.send(c.1)
            let r = try bad.readResponse()
            #expect(r.status == c.2, "\(c.0)")
            #expect(r.text.hasPrefix(#"{"error":""# + c.3 + #"","message":""#) && r.text.hasSuffix(#""}"#), "\(c.0)")
            #expect(r.headers["Content-Type"] == "application/json" && r.headers["Cache-Control"] == "no-store")
            #expect(r.headers["Connection"] == "close")
            #expect(bad.isClosedByPeer(), "\(c.0): connection left open after a protocol error")

            let good = try RawClient(port: port)
            try good.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n")
            #expect(try good.readResponse().status == 200)
        }
    }

    @Test func server_keepAliveServesSequentialRequests_SPEC10() throws {
        try withServer(route: { head, _ in ok(head.path) }) { _, port in
            let c = try RawClient(port: port)
            for path in ["/a", "/b", "/c"] {
                try c.send("GET \(path) HTTP/1.1\r\nHost: h\r\n\r\n")
                let r = try c.readResponse()
                #expect(r.status == 200 && r.text == path && r.headers["Connection"] == nil && r.headers["Date"] != nil)
            }
        }
    }

    @Test func server_pipelinedResponsesKeepRequestOrder_SPEC10() throws {
        try withServer(route: { head, exchange in
            if head.path == "/slow" {
                DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(100)) {
                    exchange.complete(Response(status: 200, body: Array("slow".utf8)))
                }
                return .deferred
            }
            return ok(head.path)
        }) { _, port in
            let c = try RawClient(port: port)
            try c.send("GET /one HTTP/1.1\r\nHost: h\r\n\r\nGET /slow HTTP/1.1\r\nHost: h\r\n\r\nGET /three HTTP/1.1\r\nHost: h\r\n\r\nHEAD /four HTTP/1.1\r\nHost: h\r\n\r\n")
            #expect(try c.readResponse().text == "/one")
            #expect(try c.readResponse().text == "slow")
            #expect(try c.readResponse().text == "/three")
            let head = try c.readResponse(head: true)
            #expect(head.status == 200 && head.headers["Content-Length"] == "5")
        }
    }

    @Test func server_http10ClosesUnlessKeepAlive_SPEC10() throws {
        try withServer(route: { _, _ in ok() }) { _, port in
            let plain = try RawClient(port: port)
            try plain.send("GET / HTTP/1.0\r\n\r\n")
            let r = try plain.readResponse()
            #expect(r.status == 200 && r.headers["Connection"] == "close")
            #expect(plain.isClosedByPeer())

            let kept = try RawClient(port: port)
            for _ in 0..<2 {
                try kept.send("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
                let k = try kept.readResponse()
                #expect(k.status == 200 && k.headers["Connection"] == "keep-alive")
            }
            try kept.send("GET / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n")
            #expect(try kept.readResponse().headers["Connection"] == "close")
            #expect(kept.isClosedByPeer())
        }
    }

    /// Collects the body and answers with its text and the trailer digest.
    static let echo: @Sendable (RequestHead, Exchange) -> HeadDecision = { head, exchange in
        if head.path == "/auth" { return .respond(.error(401, "unauthorized", "token required")) }
        exchange.setBodyHandler { body, trailers in
            var headers = HTTPFields()
            if let sha = trailers["X-Model-SHA256"] { headers.append("X-Got-Trailer", sha) }
            exchange.complete(Response(status: 200, headers: headers, body: body))
        }
        return .collectBody(limit: 1000)
    }

    @Test func server_sends100ContinueOnlyWhenReadingBody_SPEC10() throws {
        try withServer(route: Self.echo) { _, port in
            let c = try RawClient(port: port)
            try c.send("POST /up HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n")
            let interim = try c.readHead()
            #expect(interim.status == 100)
            try c.send("hello")
            let r = try c.readResponse()
            #expect(r.status == 200 && r.text == "hello")
        }
    }

    @Test func server_finalResponseAtHeadSkipsContinueAndCloses_SPEC10() throws {
        let observer = RecordingObserver()
        try withServer(observer: observer, route: Self.echo) { _, port in
            let c = try RawClient(port: port)
            try c.send("POST /auth HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 100000\r\n\r\n")
            let r = try c.readResponse()
            #expect(r.status == 401 && r.headers["Connection"] == "close")
            #expect(r.text.contains("unauthorized"))
            #expect(c.isClosedByPeer())
        }
    }

    @Test func server_collectsChunkedUploadWithTrailer_SPEC10() throws {
        try withServer(route: Self.echo) { _, port in
            let c = try RawClient(port: port)
            try c.send("POST /up HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nmode\r\n")
            try c.send("2;ext=1\r\nld\r\n0\r\nX-Model-SHA256: 9f86d0\r\n\r\n")
            let r = try c.readResponse()
            #expect(r.status == 200 && r.text == "modeld" && r.headers["X-Got-Trailer"] == "9f86d0")
            // The connection stays usable.
            try c.send("POST /up HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n\r\nok")
            #expect(try c.readResponse().text == "ok")
        }
    }

    @Test func server_rejectsBodyOverLimitWith413AndCloses_SPEC10() throws {
        try withServer(route: Self.echo) { _, port in
            let declared = try RawClient(port: port)
            try declared.send("POST /up HTTP/1.1\r\nHost: h\r\nContent-Length: 5000\r\n\r\n")
            let r = try declared.readResponse()
            #expect(r.status == 413 && r.text.contains("body_too_large") && declared.isClosedByPeer())

            let chunked = try RawClient(port: port)
            try chunked.send("POST /up HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n400\r\n" + String(repeating: "x", count: 1024) + "\r\n")
            let r2 = try chunked.readResponse()
            #expect(r2.status == 413 && chunked.isClosedByPeer())
        }
    }

    @Test func server_rejectsMalformedChunkWith400_SPEC10() throws {
        try withServer(route: Self.echo) { _, port in
            let c = try RawClient(port: port)
            try c.send("POST /up HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n")
            let r = try c.readResponse()
            #expect(r.status == 400 && r.text.contains("bad_request") && c.isClosedByPeer())
        }
    }

    @Test func server_completesDeferredExchangeFromAnotherThread() throws {
        try withServer(route: { _, exchange in
            DispatchQueue.global().async { exchange.complete(Response(status: 202, body: Array("later".utf8))) }
            return .deferred
        }) { _, port in
            let c = try RawClient(port: port)
            for _ in 0..<3 {
                try c.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n")
                let r = try c.readResponse()
                #expect(r.status == 202 && r.text == "later")
            }
        }
    }

    @Test func server_answersDeferredRequestAfterClientHalfClose() throws {
        try withServer(route: { _, exchange in
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(50)) {
                exchange.complete(Response(status: 200, body: Array("late".utf8)))
            }
            return .deferred
        }) { _, port in
            let c = try RawClient(port: port)
            try c.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n")
            shutdown(c.fd, Int32(SHUT_WR))
            #expect(try c.readResponse().text == "late")
            #expect(c.isClosedByPeer())
        }
    }

    @Test func server_streamsBodyWithPauseAndResume() throws {
        final class CountingSink: BodySink {
            let exchange: Exchange
            var count = 0
            var pauses = 0
            init(_ exchange: Exchange) { self.exchange = exchange }
            func bodyBytes(_ buffer: UnsafeRawBufferPointer) -> BodyFlow {
                count += buffer.count
                pauses += 1
                let ex = exchange
                DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(5)) { ex.resumeBody() }
                return .pause
            }
            func bodyEnd(trailers: HTTPFields) {
                exchange.complete(Response(status: 200, body: Array("\(count) \(pauses > 1)".utf8)))
            }
            func bodyAborted() {}
        }
        try withServer(route: { _, exchange in .streamBody(CountingSink(exchange)) }) { _, port in
            let c = try RawClient(port: port)
            let size = 3 * 1024 * 1024
            try c.send("PUT /blob HTTP/1.1\r\nHost: h\r\nContent-Length: \(size)\r\n\r\n")
            try c.send([UInt8](repeating: 7, count: size))
            let r = try c.readResponse()
            #expect(r.status == 200 && r.text == "\(size) true")
        }
    }

    @Test func server_sendsLargeMemoryBodiesByReferenceInOrder() throws {
        let big = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let observer = RecordingObserver()
        try withServer(observer: observer, route: { head, _ in
            head.path == "/big"
                ? .respond(Response(status: 200, parts: [.bytes(Array(big[0..<100_000])), .bytes(Array("-".utf8)), .bytes(Array(big[100_000...]))]))
                : ok(head.path)
        }) { _, port in
            let c = try RawClient(port: port)
            try c.send("GET /a HTTP/1.1\r\nHost: h\r\n\r\nGET /big HTTP/1.1\r\nHost: h\r\n\r\nGET /b HTTP/1.1\r\nHost: h\r\n\r\n")
            #expect(try c.readResponse().text == "/a")
            let r = try c.readResponse()
            #expect(r.body == Array(big[0..<100_000]) + Array("-".utf8) + Array(big[100_000...]))
            #expect(try c.readResponse().text == "/b")
            #expect(eventually { observer.all.count == 3 })
            #expect(observer.all[1].bytesSent == 200_001)
        }
    }

    @Test func server_headAnd304CarryNoBody() throws {
        try withServer(route: { head, _ in
            head.path == "/304" ? .respond(Response(status: 304, headers: ["ETag": "\"x\""], body: Array("ignored".utf8))) : ok("abc")
        }) { _, port in
            let c = try RawClient(port: port)
            try c.send("HEAD / HTTP/1.1\r\nHost: h\r\n\r\nGET /304 HTTP/1.1\r\nHost: h\r\n\r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n")
            let head = try c.readResponse(head: true)
            #expect(head.headers["Content-Length"] == "3")
            let notModified = try c.readResponse()
            #expect(notModified.status == 304 && notModified.headers["Content-Length"] == nil)
            #expect(try c.readResponse().text == "abc")  // nothing stray between the responses
        }
    }
}
}

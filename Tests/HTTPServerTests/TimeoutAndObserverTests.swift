import Glibc
import HTTPServer
import HTTPTestSupport
import HTTPWire
import Synchronization
import Testing

/// Records what a streaming sink saw, readable from the test thread.
final class RecordingSink: BodySink, @unchecked Sendable {
    // @unchecked: mutated only on the loop thread; the test reads `events` through the Mutex.
    private let log = Mutex<[String]>([])
    var events: [String] { log.withLock { $0 } }
    func bodyBytes(_ buffer: UnsafeRawBufferPointer) -> BodyFlow {
        log.withLock { $0.append("bytes \(buffer.count)") }
        return .more
    }
    func bodyEnd(trailers: HTTPFields) { log.withLock { $0.append("end") } }
    func bodyAborted() { log.withLock { $0.append("aborted") } }
}

extension ServerSuites {
@Suite struct TimeoutAndObserverTests {
    @Test func observer_reportsExactSummary() throws {
        let observer = RecordingObserver()
        try withServer(observer: observer, route: { head, _ in
            .respond(Response(status: 200, body: Array("twelve bytes".utf8), label: "latest"))
        }) { _, port in
            let c = try RawClient(port: port)
            try c.send("GET /latest?sdk=2.3 HTTP/1.1\r\nHost: h\r\nRange: bytes=0-1\r\n\r\nHEAD /latest HTTP/1.1\r\nHost: h\r\n\r\n")
            _ = try c.readResponse()
            _ = try c.readResponse(head: true)
            #expect(eventually { observer.all.count == 2 })
            let get = observer.all[0], head = observer.all[1]
            #expect(get.method == "GET" && get.path == "/latest" && get.status == 200 && get.rangeRequested)
            #expect(get.bytesSent == 12 && get.contentLength == 12 && get.label as? String == "latest")
            #expect(get.endNanos >= get.startNanos && get.peer.hasPrefix("127.0.0.1:"))
            #expect(head.method == "HEAD" && head.bytesSent == 0 && head.contentLength == 0)
        }
    }

    @Test func server_closesIdleKeepAliveAfterIdleTimeout_SPEC10() throws {
        var config = ServerConfiguration()
        config.idleTimeout = 1
        try withServer(config, route: { _, _ in ok() }) { server, port in
            let c = try RawClient(port: port)
            try c.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n")
            #expect(try c.readResponse().status == 200)
            #expect(c.isClosedByPeer())
            #expect(eventually { server.openConnections == 0 })
        }
    }

    @Test func server_abortsStalledBodyAfterBodyTimeout_SPEC10() throws {
        var config = ServerConfiguration()
        config.bodyTimeout = 1
        let sink = RecordingSink()
        try withServer(config, route: { _, _ in .streamBody(sink) }) { _, port in
            let c = try RawClient(port: port)
            try c.send("PUT /up HTTP/1.1\r\nHost: h\r\nContent-Length: 100\r\n\r\nabc")
            #expect(c.isClosedByPeer())
            #expect(eventually { sink.events == ["bytes 3", "aborted"] }, "\(sink.events)")
        }
    }

    @Test func server_tellsSinkWhenClientLeavesMidBody() throws {
        let sink = RecordingSink()
        try withServer(route: { _, _ in .streamBody(sink) }) { server, port in
            do {
                let c = try RawClient(port: port)
                try c.send("POST /up HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n")
                #expect(eventually { sink.events == ["bytes 3"] })
            }
            #expect(eventually { sink.events == ["bytes 3", "aborted"] }, "\(sink.events)")
            #expect(eventually { server.openConnections == 0 })
        }
    }
}
}

import Testing
@testable import HTTPWire

@Suite struct ResponseHeadWriterTests {
    @Test func writesHeadWithLengthDateAndConnection() {
        var date = DateCache()
        date.update(epochSeconds: 784_111_777)
        var out: [UInt8] = Array("junk".utf8)
        ResponseHeadWriter.write(status: 200, headers: ["Content-Type": "application/json"], contentLength: 4_294_967_296 + 1_048_576,
                                 connection: .close, date: date.line, into: &out)
        #expect(String(decoding: out, as: UTF8.self) == "junkHTTP/1.1 200 OK\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\n"
            + "Content-Type: application/json\r\nContent-Length: 4296015872\r\nConnection: close\r\n\r\n")
    }

    @Test func noContentLengthWhenNil_andKeepAliveFor10() {
        var out: [UInt8] = []
        ResponseHeadWriter.write(status: 304, headers: [:], contentLength: nil, connection: .keepAlive, date: [], into: &out)
        #expect(String(decoding: out, as: UTF8.self) == "HTTP/1.1 304 Not Modified\r\nConnection: keep-alive\r\n\r\n")
        #expect(ResponseHeadWriter.hasNoBody(status: 204) && ResponseHeadWriter.hasNoBody(status: 304) && !ResponseHeadWriter.hasNoBody(status: 200))
    }

    @Test func dateCacheReformatsOnlyOnNewSecond() {
        var cache = DateCache()
        cache.update(epochSeconds: 0)
        let first = cache.line
        cache.update(epochSeconds: 0)
        #expect(cache.line == first)
        cache.update(epochSeconds: 1)
        #expect(String(decoding: cache.line, as: UTF8.self) == "Date: Thu, 01 Jan 1970 00:00:01 GMT\r\n")
    }

    @Test func errorBody_isSpecJSON_SPEC10() {
        #expect(String(decoding: ErrorBody.json(code: "bad_request", message: "a \"q\"\n\u{01}"), as: UTF8.self)
            == #"{"error":"bad_request","message":"a \"q\"\n\u0001"}"#)
    }
}

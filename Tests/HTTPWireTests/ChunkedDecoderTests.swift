import Testing
@testable import HTTPWire

/// Decodes `text` delivered in pieces of `step` bytes; returns body, trailers or the error.
private func decode(_ text: String, step: Int = .max, maxTrailerBytes: Int = 65536) -> (body: [UInt8], end: ChunkedDecoder.Event?) {
    let bytes = Array(text.utf8)
    var decoder = ChunkedDecoder(maxTrailerBytes: maxTrailerBytes)
    var body: [UInt8] = []
    var buffer: [UInt8] = []
    var fed = 0
    while true {
        if fed < bytes.count {
            let n = min(step, bytes.count - fed)
            buffer += bytes[fed..<fed + n]
            fed += n
        }
        var progressed = false
        while !buffer.isEmpty {
            let (consumed, event) = buffer.withUnsafeBytes { decoder.decode($0) }
            switch event {
            case .data(let r): body += buffer[r]
            case .end, .error: return (body, event)
            case .needMore: break
            }
            buffer.removeFirst(consumed)
            progressed = consumed > 0
            if case .needMore = event { break }
        }
        if fed == bytes.count && !progressed { return (body, nil) }
    }
}

@Suite struct ChunkedDecoderTests {
    static let upload = "5\r\nhello\r\n6;name=value\r\n world\r\nA\r\n0123456789\r\n0\r\nX-Model-SHA256: abc123\r\nX-Other: 1\r\n\r\n"

    @Test func chunked_decodesBodyAndTrailers_SPEC10() {
        for step in [1, 2, 3, 7, 1000] {
            let (body, end) = decode(Self.upload, step: step)
            #expect(String(decoding: body, as: UTF8.self) == "hello world0123456789", "step \(step)")
            guard case .end(let trailers)? = end else { Issue.record("no end at step \(step)"); continue }
            #expect(trailers["x-model-sha256"] == "abc123" && trailers.count == 2)
        }
    }

    @Test func chunked_withoutTrailers() {
        let (body, end) = decode("3\r\nabc\r\n0\r\n\r\n", step: 1)
        #expect(body == Array("abc".utf8) && end == .end(trailers: HTTPFields()))
    }

    @Test(arguments: [
        "x\r\nabc\r\n0\r\n\r\n",                           // not hex
        "\r\nabc\r\n0\r\n\r\n",                            // empty size
        "10000000000000000\r\n",                         // overflows Int64
        "3\r\nabcd\r\n0\r\n\r\n",                          // more data than announced
        "3\nabc\r\n0\r\n\r\n",                             // bare LF after size
        "-1\r\n",                                        // sign
        "0\r\nBad Trailer: x\r\n\r\n",                     // invalid trailer name
    ])
    func chunked_rejectsBadSizesAndFraming_SPEC10(_ text: String) {
        guard case .error(let e)? = decode(text).end else { Issue.record("accepted \(text.debugDescription)"); return }
        #expect(e.status == 400 && e.code == "bad_request")
    }

    @Test func chunked_trailersAreBounded_SPEC10() {
        let text = "0\r\nX-Big: " + String(repeating: "b", count: 300) + "\r\n\r\n"
        guard case .error(let e)? = decode(text, maxTrailerBytes: 100).end else { Issue.record("accepted"); return }
        #expect(e.status == 431)
    }

    @Test func chunked_acceptsLargestInt64Size() {
        let (_, end) = decode("7fffffffffffffff\r\nabc", step: 1000)
        #expect(end == nil)  // still waiting for data, no overflow
    }
}

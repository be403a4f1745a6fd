import Testing
@testable import HTTPWire

/// Feeds `text` to a fresh parser in one piece.
private func parse(_ text: String, maxHeaderBytes: Int = 65536) -> RequestParser.Outcome {
    var parser = RequestParser(maxHeaderBytes: maxHeaderBytes)
    return Array(text.utf8).withUnsafeBytes { parser.parse($0) }
}

private func expectError(_ text: String, _ status: Int, _ code: String, maxHeaderBytes: Int = 65536,
                         sourceLocation: SourceLocation = #_sourceLocation) {
    guard case .error(let e) = parse(text, maxHeaderBytes: maxHeaderBytes) else {
        Issue.record("expected \(status) \(code) for \(text.debugDescription)", sourceLocation: sourceLocation)
        return
    }
    #expect(e.status == status && e.code == code, "\(e) for \(text.debugDescription)", sourceLocation: sourceLocation)
}

private func head(_ text: String) -> RequestHead? {
    if case .head(let h, _) = parse(text) { return h }
    return nil
}

@Suite struct RequestParserTests {
    @Test func parser_parsesRequestLineAndFields_SPEC10() throws {
        let h = try #require(head("GET /models/a.gguf?x=1&y=%20z HTTP/1.1\r\nHost: h\r\nX-A:  v  \r\n\r\n"))
        #expect(h.method == "GET" && h.path == "/models/a.gguf" && h.query == "x=1&y=%20z")
        #expect(h.versionMinor == 1 && h.keepAlive && h.body == .none && !h.expectsContinue)
        #expect(h.headers["x-a"] == "v" && h.headers["HOST"] == "h")
        #expect(h.queryItem("y") == " z" && h.queryItem("x") == "1" && h.queryItem("nope") == nil)
    }

    static let rejections: [(String, Int, String)] = [
        ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n", 400, "bad_request"),
        ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n", 400, "bad_request"),
        ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3, 4\r\n\r\n", 400, "bad_request"),
        ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: -1\r\n\r\n", 400, "bad_request"),
        ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 99999999999999999999\r\n\r\n", 400, "bad_request"),
        ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip\r\n\r\n", 501, "not_implemented"),
        ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", 501, "not_implemented"),
        ("GET / HTTP/1.1\r\nHost: h\r\nX-A: a\r\n  folded\r\n\r\n", 400, "bad_request"),
        ("GET / HTTP/1.1\r\nHost: h\r\nX-A : a\r\n\r\n", 400, "bad_request"),
        ("GET / HTTP/1.1\r\nHost: h\r\nX-A: a\rb\r\n\r\n", 400, "bad_request"),
        ("GET / HTTP/1.1\r\nHost: h\r\nX-A: a\u{01}b\r\n\r\n", 400, "bad_request"),
        ("GET / HTTP/1.1\r\nHost: h\r\nX-A: a\u{7f}\r\n\r\n", 400, "bad_request"),
        ("GET / HTTP/1.1\r\nHost: h\r\nX-A: a\nX-B: b\r\n\r\n", 400, "bad_request"),
        ("GET / HTTP/1.1\r\nHost: h\r\nX(A): a\r\n\r\n", 400, "bad_request"),
        ("GET / HTTP/1.1\r\nHost: h\r\n: a\r\n\r\n", 400, "bad_request"),
        ("GET / HTTP/1.1\r\nHost: h\r\nNoColon\r\n\r\n", 400, "bad_request"),
        ("G@T / HTTP/1.1\r\nHost: h\r\n\r\n", 400, "bad_request"),
        ("GET  / HTTP/1.1\r\nHost: h\r\n\r\n", 400, "bad_request"),
        ("GET /a\u{01} HTTP/1.1\r\nHost: h\r\n\r\n", 400, "bad_request"),
        ("GET / HTTP/1.1\rHost: h\r\n\r\n", 400, "bad_request"),
        ("GET / http/1.1\r\nHost: h\r\n\r\n", 400, "bad_request"),
        ("GET / HTTP/1.1\r\n\r\n", 400, "bad_request"),
        ("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400, "bad_request"),
        ("GET / HTTP/2.0\r\nHost: h\r\n\r\n", 505, "version_not_supported"),
        ("GET / HTTP/1.2\r\nHost: h\r\n\r\n", 505, "version_not_supported"),
        ("GET / HTTP/0.9\r\nHost: h\r\n\r\n", 505, "version_not_supported"),
    ]

    @Test(arguments: rejections)
    func parser_rejectsMalformedHeads_SPEC10(_ c: (String, Int, String)) {
        expectError(c.0, c.1, c.2)
    }

    @Test func parser_rejectsCLAndTE_SPEC10() {
        expectError("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nContent-Length: 1\r\n\r\n", 400, "bad_request")
    }

    @Test func parser_acceptsIdenticalDuplicateContentLength_SPEC10() throws {
        let h = try #require(head("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 7\r\nContent-Length: 7\r\n\r\n"))
        #expect(h.body == .length(7))
        #expect(head("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 7, 7\r\n\r\n")?.body == .length(7))
        #expect(head("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n")?.body == RequestBodyKind.none)
        #expect(head("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: Chunked\r\n\r\n")?.body == .chunked)
    }

    @Test func parser_requestLineOver8KiB_is414_SPEC10() {
        let long = "GET /" + String(repeating: "a", count: 8200) + " HTTP/1.1\r\nHost: h\r\n\r\n"
        expectError(long, 414, "uri_too_long")
        // Incomplete but already too long: rejected before the line ends.
        expectError("GET /" + String(repeating: "a", count: 9000), 414, "uri_too_long")
        let fits = "GET /" + String(repeating: "a", count: 8192 - 14) + " HTTP/1.1\r\nHost: h\r\n\r\n"
        #expect(head(fits) != nil)
    }

    @Test func parser_headerSectionOverLimit_is431_SPEC10() {
        let big = "GET / HTTP/1.1\r\nHost: h\r\nX-A: " + String(repeating: "v", count: 2000) + "\r\n\r\n"
        expectError(big, 431, "headers_too_large", maxHeaderBytes: 1024)
        expectError("GET / HTTP/1.1\r\nHost: h\r\nX-A: " + String(repeating: "v", count: 2000), 431, "headers_too_large", maxHeaderBytes: 1024)
        let many = "GET / HTTP/1.1\r\nHost: h\r\n" + (0..<100).map { "X-\($0): v\r\n" }.joined() + "\r\n"
        expectError(many, 431, "headers_too_large")
        let hundred = "GET / HTTP/1.1\r\nHost: h\r\n" + (0..<99).map { "X-\($0): v\r\n" }.joined() + "\r\n"
        #expect(head(hundred) != nil)
    }

    @Test func parser_keepAliveRules_SPEC10() {
        #expect(head("GET / HTTP/1.1\r\nHost: h\r\n\r\n")?.keepAlive == true)
        #expect(head("GET / HTTP/1.1\r\nHost: h\r\nConnection: Close\r\n\r\n")?.keepAlive == false)
        #expect(head("GET / HTTP/1.1\r\nHost: h\r\nConnection: foo, close\r\n\r\n")?.keepAlive == false)
        #expect(head("GET / HTTP/1.0\r\n\r\n")?.keepAlive == false)
        #expect(head("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")?.keepAlive == true)
        #expect(head("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n")?.versionMinor == 0)
    }

    @Test func parser_expectContinueOnlyWithBody() {
        #expect(head("POST / HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n")?.expectsContinue == true)
        #expect(head("GET / HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\n\r\n")?.expectsContinue == false)
    }

    @Test func parser_handlesHeadSplitAtEveryByte_SPEC10() {
        let bytes = Array("\r\nPOST /up?a=1 HTTP/1.1\r\nHost: example\r\nContent-Length: 12\r\nX-Long: abcdefghij\r\n\r\nBODY".utf8)
        let whole = bytes.withUnsafeBytes { b -> RequestParser.Outcome in
            var p = RequestParser()
            return p.parse(b)
        }
        guard case .head(let expected, let consumed) = whole else { Issue.record("no head"); return }
        #expect(consumed == bytes.count - 4)
        for split in 1..<bytes.count {
            var p = RequestParser()
            var result = RequestParser.Outcome.needMore
            for end in [split, bytes.count] {
                result = bytes.withUnsafeBytes { p.parse(UnsafeRawBufferPointer(rebasing: $0[0..<end])) }
                if case .head = result { break }
            }
            #expect(result == .head(expected, consumed: consumed), "split at \(split)")
        }
        // One byte at a time, too.
        var p = RequestParser()
        var got: RequestParser.Outcome = .needMore
        for end in 1...bytes.count where got == .needMore {
            got = bytes.withUnsafeBytes { p.parse(UnsafeRawBufferPointer(rebasing: $0[0..<end])) }
        }
        #expect(got == whole)
    }

    @Test func parser_takesPipelinedRequestsOneAtATime_SPEC10() {
        let bytes = Array("GET /a HTTP/1.1\r\nHost: h\r\n\r\nGET /b HTTP/1.1\r\nHost: h\r\n\r\nGET /c HTTP/1.1\r\nHo".utf8)
        var p = RequestParser()
        var offset = 0
        var paths: [String] = []
        while true {
            let r = bytes.withUnsafeBytes { p.parse(UnsafeRawBufferPointer(rebasing: $0[offset...])) }
            guard case .head(let h, let n) = r else { #expect(r == .needMore); break }
            paths.append(h.path)
            offset += n
            p.reset()
        }
        #expect(paths == ["/a", "/b"])
    }
}

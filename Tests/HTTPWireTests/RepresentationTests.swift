import CivilTime
import Testing
@testable import HTTPWire

/// Whole plans for GET and HEAD: http-edge-cases.md §2, §4, §5 with SPEC §4.3 settlements.
@Suite struct RepresentationTests {
    static let file = Array("hello world".utf8)   // 11 bytes, like Go's ServeFileRangeTests
    static let modified: Int64 = 1_795_000_000
    static let etag = "\"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08\""
    static let extras = [("Cache-Control", "public, max-age=31536000, immutable"), ("Repr-Digest", "sha-256=:n4bQgYhMfWWaL+qgxVrQFaO/TxsrC4Is0V1sFbDwCgg=:")]
    static let representation = Representation(size: 11, etag: etag, lastModified: modified,
                                                contentType: "application/octet-stream", headers: extras)
    static let methods = ["GET", "HEAD"]

    static func plan(_ method: String, _ headers: ConditionalHeaders, _ r: Representation = representation) -> RepresentationPlan {
        RepresentationResponder.plan(method: method, request: headers, representation: r, boundary: "BOUNDARY")
    }

    struct RangeRow: Sendable, CustomTestStringConvertible {
        var range: String?
        var status: Int
        var contentRange: String?
        var body: String
        var testDescription: String { range ?? "(none)" }
    }

    static let rangeRows: [RangeRow] = [
        RangeRow(range: nil, status: 200, contentRange: nil, body: "hello world"),
        RangeRow(range: "bytes=0-4", status: 206, contentRange: "bytes 0-4/11", body: "hello"),
        RangeRow(range: "bytes=2-", status: 206, contentRange: "bytes 2-10/11", body: "llo world"),
        RangeRow(range: "bytes=-5", status: 206, contentRange: "bytes 6-10/11", body: "world"),
        RangeRow(range: "bytes=3-7", status: 206, contentRange: "bytes 3-7/11", body: "lo wo"),
        RangeRow(range: "bytes=5-1000", status: 206, contentRange: "bytes 5-10/11", body: " world"),
        RangeRow(range: "bytes=0-9", status: 206, contentRange: "bytes 0-9/11", body: "hello worl"),
        RangeRow(range: "bytes=0-10", status: 206, contentRange: "bytes 0-10/11", body: "hello world"),
        RangeRow(range: "bytes=0-11", status: 206, contentRange: "bytes 0-10/11", body: "hello world"),
        RangeRow(range: "bytes=10-11", status: 206, contentRange: "bytes 10-10/11", body: "d"),
        RangeRow(range: "bytes=10-", status: 206, contentRange: "bytes 10-10/11", body: "d"),
        RangeRow(range: "bytes=-15", status: 206, contentRange: "bytes 0-10/11", body: "hello world"),
        RangeRow(range: "bYtEs=1-1", status: 206, contentRange: "bytes 1-1/11", body: "e"),
        RangeRow(range: "bytes=15-,0-5", status: 206, contentRange: "bytes 0-5/11", body: "hello "),
        RangeRow(range: "items=0-5", status: 200, contentRange: nil, body: "hello world"),
        RangeRow(range: "foo", status: 200, contentRange: nil, body: "hello world"),
        RangeRow(range: "bytes=0-,1-,2-,3-,4-", status: 200, contentRange: nil, body: "hello world"),
        RangeRow(range: "bytes=0-5,3-8", status: 200, contentRange: nil, body: "hello world"),
    ] + ["bytes=11-", "bytes=11-12", "bytes=12-12", "bytes=11-100", "bytes=12-100", "bytes=100-", "bytes=100-1000",
         "bytes=", "bytes= , ,", "bytes=5-4", "bytes=x-", "bytes=-0", "bytes=--6", "bytes=-6-", "bytes=99999999999999999999-"].map {
        RangeRow(range: $0, status: 416, contentRange: "bytes */11", body: "")   // JSON body: see the 416 test
    }

    @Test(arguments: rangeRows, methods)
    func rangeTable_GoServeFileRangeTests_SPEC4_3(_ row: RangeRow, _ method: String) {
        let p = Self.plan(method, ConditionalHeaders(range: row.range))
        #expect(p.status == row.status)
        #expect(p.header("Content-Range") == row.contentRange)
        guard row.status != 416 else { return }
        #expect(String(decoding: materialise(p.parts, file: Self.file), as: UTF8.self) == row.body)
        #expect(p.contentLength == Int64(row.body.utf8.count))
        #expect(p.header("Content-Type") == "application/octet-stream")   // one range is never multipart
        #expect(p.header("ETag") == Self.etag)
        #expect(p.header("Last-Modified") == "Wed, 18 Nov 2026 11:06:40 GMT")
        #expect(p.header("Accept-Ranges") == "bytes")
        #expect(p.header("Cache-Control") == Self.extras[0].1)
        #expect(p.header("Repr-Digest") == Self.extras[1].1)
        #expect(p.header("Content-Length") == nil)                           // the engine's job
    }

    @Test(arguments: methods)
    func unsatisfiable_is416WithJSONErrorAndNoValidators_SPEC4_3_SPEC10(_ method: String) {
        let p = Self.plan(method, ConditionalHeaders(range: "bytes=100-"))
        #expect(p.status == 416)
        #expect(p.headers.map(\.0) == ["Content-Range", "Content-Type", "Cache-Control"])
        #expect(p.header("Content-Range") == "bytes */11")
        #expect(p.header("Content-Type") == "application/json")
        #expect(p.header("Cache-Control") == "no-store")
        let body = String(decoding: materialise(p.parts, file: []), as: UTF8.self)
        #expect(body.hasPrefix(#"{"error":"range_not_satisfiable","message":""#) && body.hasSuffix(#""}"#))
        let malformed = #"{"error":"range_not_satisfiable","message":"the Range header is not a valid byte-range set"}"#
        #expect(Self.plan(method, ConditionalHeaders(range: "bytes=5-4")).parts == [.bytes(Array(malformed.utf8))])
    }

    @Test(arguments: methods)
    func multipart_twoRanges_exactLengthAndParts_SPEC4_3(_ method: String) {
        let p = Self.plan(method, ConditionalHeaders(range: "bytes=0-0,-2"))
        #expect(p.status == 206)
        #expect(p.header("Content-Type") == "multipart/byteranges; boundary=BOUNDARY")
        #expect(p.header("Content-Range") == nil)
        let body = materialise(p.parts, file: Self.file)
        let expected = "--BOUNDARY\r\nContent-Type: application/octet-stream\r\nContent-Range: bytes 0-0/11\r\n\r\nh"
            + "\r\n--BOUNDARY\r\nContent-Type: application/octet-stream\r\nContent-Range: bytes 9-10/11\r\n\r\nld"
            + "\r\n--BOUNDARY--\r\n"
        #expect(body == Array(expected.utf8))
        #expect(p.contentLength == Int64(body.count))
        #expect(p.header("ETag") == Self.etag && p.header("Accept-Ranges") == "bytes")
    }

    @Test(arguments: ["bytes=0-1,5-8", "bytes=0-1,5-", "bytes=8-,0-0,3-4"], methods)
    func multipart_keepsOrderAndLength(_ range: String, _ method: String) {
        let p = Self.plan(method, ConditionalHeaders(range: range))
        #expect(p.status == 206)
        #expect(p.contentLength == Int64(materialise(p.parts, file: Self.file).count))
        #expect(p.parts.filter { if case .file = $0 { true } else { false } }.count == range.split(separator: ",").count)
    }

    @Test func multipart_defaultBoundaryIsRandomPerCall() {
        let h = ConditionalHeaders(range: "bytes=0-0,2-2")
        let a = RepresentationResponder.plan(method: "GET", request: h, representation: Self.representation)
        let b = RepresentationResponder.plan(method: "GET", request: h, representation: Self.representation)
        #expect(a.header("Content-Type") != b.header("Content-Type"))
        #expect(a.contentLength == b.contentLength)   // fixed-width boundary: same length every time
    }

    @Test(arguments: methods)
    func notModified_keepsETagAndCacheHeadersOnly_RFC9110_15_4_5(_ method: String) {
        let r = Representation(size: 11, etag: Self.etag, lastModified: Self.modified, contentType: "application/json",
                               headers: [("Cache-Control", "public, max-age=60"), ("Vary", "Accept-Encoding"),
                                         ("Content-Encoding", "gzip"), ("Repr-Digest", "sha-256=:x:")])
        for h in [ConditionalHeaders(ifNoneMatch: Self.etag), ConditionalHeaders(ifModifiedSince: HTTPDate.format(epochSeconds: Self.modified)),
                  ConditionalHeaders(ifNoneMatch: "*", range: "bytes=0-1")] {
            let p = Self.plan(method, h, r)
            #expect(p.status == 304)
            #expect(p.headers.map(\.0) == ["ETag", "Cache-Control", "Vary"])
            #expect(p.parts.isEmpty && p.contentLength == 0)
        }
    }

    @Test(arguments: methods)
    func preconditionFailed_is412WithJSONError_SPEC4_3_SPEC10(_ method: String) {
        for h in [ConditionalHeaders(ifMatch: "\"other\""), ConditionalHeaders(ifUnmodifiedSince: HTTPDate.format(epochSeconds: Self.modified - 2))] {
            let p = Self.plan(method, h)
            #expect(p.status == 412)
            #expect(p.headers.map(\.0) == ["Content-Type", "Cache-Control"])
            #expect(p.header("Cache-Control") == "no-store")
            #expect(String(decoding: materialise(p.parts, file: []), as: UTF8.self).hasPrefix(#"{"error":"precondition_failed","message":""#))
        }
    }

    @Test(arguments: methods)
    func ifRange_decidesWhetherRangeApplies_SPEC4_3(_ method: String) {
        let date = HTTPDate.format(epochSeconds: Self.modified)
        #expect(Self.plan(method, .init(ifRange: Self.etag, range: "bytes=0-4")).status == 206)
        #expect(Self.plan(method, .init(ifRange: date, range: "bytes=0-4")).status == 206)
        #expect(Self.plan(method, .init(ifRange: "\"stale\"", range: "bytes=0-4")).status == 200)
        #expect(Self.plan(method, .init(ifRange: "W/" + Self.etag, range: "bytes=0-4")).status == 200)
        #expect(Self.plan(method, .init(ifRange: HTTPDate.format(epochSeconds: Self.modified + 1), range: "bytes=0-4")).status == 200)
        // A failed If-Range drops even a malformed Range: the answer is the whole file, not 416.
        #expect(Self.plan(method, .init(ifRange: "\"stale\"", range: "bytes=5-4")).status == 200)
    }

    @Test(arguments: ["bytes=0-128", "bytes=1-", "bytes=-1", "bytes=5-4"], methods)
    func emptyFile_anyRange_is200_SPEC4_3(_ range: String, _ method: String) {
        let empty = Representation(size: 0, etag: "\"e3b0\"", lastModified: Self.modified, contentType: "application/octet-stream")
        let p = Self.plan(method, ConditionalHeaders(range: range), empty)
        #expect(p.status == 200)
        #expect(p.parts == [.file(offset: 0, length: 0)])
    }

    @Test(arguments: methods)
    func sixtyFourBitFile_singleRangeAcross4GiB_SPEC4_3(_ method: String) {
        let size: Int64 = 4 * 1024 * 1024 * 1024 + 1024 * 1024
        let big = Representation(size: size, etag: Self.etag, lastModified: Self.modified, contentType: "application/octet-stream")
        let whole = Self.plan(method, ConditionalHeaders(), big)
        #expect(whole.status == 200 && whole.contentLength == size && whole.parts == [.file(offset: 0, length: size)])
        let p = Self.plan(method, ConditionalHeaders(range: "bytes=4294967295-4294967296"), big)
        #expect(p.status == 206)
        #expect(p.parts == [.file(offset: 4_294_967_295, length: 2)])
        #expect(p.header("Content-Range") == "bytes 4294967295-4294967296/4296015872")
        let multi = Self.plan(method, ConditionalHeaders(range: "bytes=2147483647-2147483648,-1048576"), big)
        #expect(multi.status == 206)
        #expect(multi.parts[1] == .file(offset: 2_147_483_647, length: 2))
        #expect(multi.parts[3] == .file(offset: 4_294_967_296, length: 1_048_576))
    }

    @Test func headGetsExactlyTheGETPlan_SPEC4_3() {
        for h in [ConditionalHeaders(), .init(range: "bytes=0-4"), .init(range: "bytes=1-2,6-7"), .init(range: "bytes=99-"),
                  .init(ifNoneMatch: Self.etag), .init(ifMatch: "\"x\"")] {
            let get = Self.plan("GET", h), head = Self.plan("HEAD", h)
            #expect(get.status == head.status && get.parts == head.parts)
            #expect(get.headers.map { "\($0.0): \($0.1)" } == head.headers.map { "\($0.0): \($0.1)" })
        }
    }
}

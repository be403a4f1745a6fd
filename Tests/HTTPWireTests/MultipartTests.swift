import Testing
@testable import HTTPWire

/// Materialises a plan's body from an in-memory "file", as sendfile would.
func materialise(_ parts: [BodyPart], file: [UInt8]) -> [UInt8] {
    parts.flatMap { part -> [UInt8] in
        switch part {
        case .bytes(let b): b
        case .file(let offset, let length): Array(file[Int(offset)..<Int(offset + length)])
        }
    }
}

@Suite struct MultipartTests {
    static let file = Array("hello, ranges".utf8)   // 13 bytes

    @Test func layout_matchesRFC9110_14_6_byteForByte() {
        let m = MultipartByteranges(ranges: [ByteRange(start: 0, length: 1), ByteRange(start: 11, length: 2)],
                                    size: 13, contentType: "text/plain", boundary: "B0UND")
        let expected = "--B0UND\r\nContent-Type: text/plain\r\nContent-Range: bytes 0-0/13\r\n\r\nh"
            + "\r\n--B0UND\r\nContent-Type: text/plain\r\nContent-Range: bytes 11-12/13\r\n\r\nes"
            + "\r\n--B0UND--\r\n"
        #expect(materialise(m.parts, file: Self.file) == Array(expected.utf8))
        #expect(m.contentType == "multipart/byteranges; boundary=B0UND")
    }

    @Test(arguments: [
        [ByteRange(start: 0, length: 1), ByteRange(start: 9, length: 2)],
        [ByteRange(start: 7, length: 6), ByteRange(start: 0, length: 1), ByteRange(start: 3, length: 2)],
        (0..<13).map { ByteRange(start: Int64($0), length: 1) },
    ])
    func contentLength_isExactSumOfRealBytes_SPEC4_3(_ ranges: [ByteRange]) {
        let m = MultipartByteranges(ranges: ranges, size: 13, contentType: "application/octet-stream", boundary: "xyz")
        #expect(m.contentLength == Int64(materialise(m.parts, file: Self.file).count))
    }

    @Test func fileDataStaysZeroCopy_partsAlternate() {
        let m = MultipartByteranges(ranges: [ByteRange(start: 2, length: 3), ByteRange(start: 8, length: 4)],
                                    size: 13, contentType: "text/plain", boundary: "b")
        #expect(m.parts.count == 5)
        #expect(m.parts[1] == .file(offset: 2, length: 3))
        #expect(m.parts[3] == .file(offset: 8, length: 4))
        for i in [0, 2, 4] {
            guard case .bytes = m.parts[i] else { Issue.record("part \(i) should be bytes"); continue }
        }
    }

    @Test func sixtyFourBitOffsets_lengthIsPureArithmetic() {
        let size: Int64 = 4 * 1024 * 1024 * 1024 + 1024 * 1024
        let ranges = [ByteRange(start: 2_147_483_647, length: 2), ByteRange(start: 4_294_967_295, length: 1_048_577)]
        let m = MultipartByteranges(ranges: ranges, size: size, contentType: "application/octet-stream", boundary: "b")
        let headerBytes = m.parts.reduce(Int64(0)) { sum, part in
            if case .bytes(let b) = part { sum + Int64(b.count) } else { sum }
        }
        #expect(m.contentLength == headerBytes + 2 + 1_048_577)
        #expect(m.parts[3] == .file(offset: 4_294_967_295, length: 1_048_577))
        guard case .bytes(let head) = m.parts[2] else { Issue.record("expected part headers"); return }
        #expect(String(decoding: head, as: UTF8.self).contains("Content-Range: bytes 4294967295-4296015871/4296015872\r\n"))
    }

    @Test func randomBoundary_is32HexDigits_andVaries() {
        let a = MultipartByteranges.randomBoundary(), b = MultipartByteranges.randomBoundary()
        #expect(a.count == 32 && a.allSatisfy(\.isHexDigit))
        #expect(a != b)
    }
}

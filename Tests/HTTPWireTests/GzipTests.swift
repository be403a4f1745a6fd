import Testing
@testable import HTTPWire

@Suite struct GzipTests {
    static let json = Array(String(repeating: #"{"id":"80a2c3d1","size":1048576,"channel":"stable"},"#, count: 200).utf8)

    @Test func roundTrip_gzipWrapper_SPEC4_1() throws {
        let packed = Gzip.compress(Self.json)
        #expect(packed.starts(with: [0x1F, 0x8B, 8]))       // gzip magic, deflate
        #expect(packed.count < Self.json.count / 10)
        #expect(try Gzip.inflate(packed, limit: Self.json.count) == Self.json)
    }

    @Test func roundTrip_emptyAndIncompressible() throws {
        #expect(try Gzip.inflate(Gzip.compress([]), limit: 0) == [])
        var rng = SystemRandomNumberGenerator()
        let noise = (0..<200_000).map { _ in UInt8.random(in: 0...255, using: &rng) }
        #expect(try Gzip.inflate(Gzip.compress(noise), limit: noise.count) == noise)
    }

    @Test func limitIsInclusive() throws {
        let packed = Gzip.compress(Self.json)
        #expect(try Gzip.inflate(packed, limit: Self.json.count).count == Self.json.count)
        #expect(throws: GzipError.tooLarge) { try Gzip.inflate(packed, limit: Self.json.count - 1) }
    }

    @Test func bomb_stopsAtLimit_SPEC4_2() {
        let bomb = Gzip.compress([UInt8](repeating: 0, count: 50_000_000))
        #expect(bomb.count < 100_000)
        #expect(throws: GzipError.tooLarge) { try Gzip.inflate(bomb, limit: 8 * 1024 * 1024) }
        var inflater = GzipInflater(limit: 8 * 1024 * 1024)
        #expect(throws: GzipError.tooLarge) { try bomb.withUnsafeBytes { try inflater.append($0) } }
        #expect(inflater.output.count == 8 * 1024 * 1024)    // never held more than the limit
        #expect(throws: GzipError.tooLarge) { try inflater.finish() }
    }

    @Test func corruptOrTruncated_isInvalid_SPEC4_2() {
        var packed = Gzip.compress(Self.json)
        #expect(throws: GzipError.invalid) { try Gzip.inflate(packed.dropLast(9), limit: 1 << 20) }
        #expect(throws: GzipError.invalid) { try Gzip.inflate(Array(Self.json), limit: 1 << 20) }
        #expect(throws: GzipError.invalid) { try Gzip.inflate([UInt8](), limit: 1 << 20) }
        #expect(throws: GzipError.invalid) { try Gzip.inflate(packed + [0], limit: 1 << 20) }
        #expect(throws: GzipError.invalid) { try Gzip.inflate(packed + Array("junk after the member".utf8), limit: 1 << 20) }
        packed[packed.count - 6] ^= 0xFF                       // CRC32 trailer
        #expect(throws: GzipError.invalid) { try Gzip.inflate(packed, limit: 1 << 20) }
    }

    @Test func acceptsZlibWrapperAndConcatenatedMembers() throws {
        // zlib stream of "hi" (RFC 1950): header 78 9C, fixed-Huffman deflate, Adler-32.
        let zlib: [UInt8] = [0x78, 0x9C, 0xCB, 0xC8, 0x04, 0x00, 0x01, 0x3B, 0x00, 0xD2]
        #expect(try Gzip.inflate(zlib, limit: 10) == Array("hi".utf8))
        let two = Gzip.compress(Array("ab".utf8)) + Gzip.compress(Array("cd".utf8))
        #expect(try Gzip.inflate(two, limit: 10) == Array("abcd".utf8))
        #expect(try Gzip.inflate(two[...], limit: 10) == Array("abcd".utf8))
    }

    @Test func streaming_acceptsAnyChunking() throws {
        let packed = Gzip.compress(Self.json)
        var inflater = GzipInflater(limit: 1 << 20)
        for start in stride(from: 0, to: packed.count, by: 7) {
            try packed[start..<min(start + 7, packed.count)].withUnsafeBytes { try inflater.append($0) }
        }
        #expect(try inflater.finish() == Self.json)
    }
}

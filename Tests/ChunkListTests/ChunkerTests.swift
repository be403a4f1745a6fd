import CryptoPrimitives
import Testing
import TestRandomness
@testable import ChunkList

/// Seeded random bytes: chunking random data exercises the hash, not a pattern.
func randomBytes(_ count: Int, seed: UInt64) -> [UInt8] {
    var g = SeededGenerator(state: seed)
    var out = [UInt8](repeating: 0, count: count)
    var i = 0
    while i < count {
        var word = g.next()
        for _ in 0..<8 where i < count {
            out[i] = UInt8(truncatingIfNeeded: word)
            word >>= 8
            i += 1
        }
    }
    return out
}

func list(of bytes: [UInt8], appendSize: Int = 1 << 20) -> ChunkList {
    var builder = ChunkListBuilder()
    var start = 0
    while start < bytes.count {
        let end = min(bytes.count, start + appendSize)
        bytes[start..<end].withUnsafeBytes { builder.append($0) }
        start = end
    }
    return builder.finish()
}

struct GearTableTests {
    /// The pasted constants are what the documented generator gives (GearTable.swift).
    @Test func table_isSplitMix64SeededWithMDCHUNK1() {
        var g = SeededGenerator(state: 0x4d44_4348_554e_4b31)
        #expect(gearTable.count == 256)
        #expect(gearTable == (0..<256).map { _ in g.next() })
    }
}

struct ChunkerTests {
    static let data = randomBytes(8 << 20, seed: 22)

    @Test func chunks_tileTheInput_withinSizeBounds_SPEC14() {
        let ranges = ContentDefinedChunker.chunks(Self.data)
        #expect(ranges.first?.lowerBound == 0 && ranges.last?.upperBound == Self.data.count)
        #expect(zip(ranges, ranges.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound })
        #expect(ranges.dropLast().allSatisfy { (ContentDefinedChunker.minSize...ContentDefinedChunker.maxSize).contains($0.count) })
        let mean = Self.data.count / ranges.count
        #expect((48 << 10...80 << 10).contains(mean), "mean chunk \(mean) bytes, target 64 KiB")
    }

    @Test func cut_shortInput_isOneChunk_andEmptyHasNone() {
        #expect(ContentDefinedChunker.chunks([]).isEmpty)
        #expect(ContentDefinedChunker.chunks(Array(Self.data[0..<5000])) == [0..<5000])
        // Constant bytes never satisfy the mask: every chunk is cut at the maximum.
        let flat = [UInt8](repeating: 0, count: 300 << 10)
        #expect(ContentDefinedChunker.chunks(flat).map(\.count) == [128 << 10, 128 << 10, 44 << 10])
    }

    @Test func builder_sameBytes_sameListBytes_whateverTheAppendSizes_SPEC14() {
        let a = list(of: Self.data).encoded()
        #expect(list(of: Self.data, appendSize: 4096).encoded() == a)
        #expect(list(of: Self.data, appendSize: 777_777).encoded() == a)
        // The streaming builder cuts exactly where the whole-buffer chunker does, and hashes the right bytes.
        let whole = ContentDefinedChunker.chunks(Self.data)
        let built = list(of: Self.data)
        #expect(built.chunks.map(\.length) == whole.map(\.count))
        #expect(built.chunks.first?.sha256 == ChunkDigest(SHA256.hash(data: Self.data[whole[0]])))
        #expect(built.fileSize == Int64(Self.data.count))
    }

    @Test func insertionAtTheFront_keepsAtLeast95PercentOfChunks_SPEC14() {
        let shifted = randomBytes(64, seed: 7) + Self.data
        let before = Set(list(of: Self.data).chunks.map(\.sha256))
        let after = list(of: shifted).chunks
        let shared = after.filter { before.contains($0.sha256) }.count
        #expect(Double(shared) >= 0.95 * Double(after.count), "\(shared) of \(after.count) chunks shared")
    }

    @Test func deltaPlan_reusesUnchangedChunks_andJoinsMissingOnesUpTo8MiB() {
        var edited = Self.data
        for i in 3_000_000..<3_100_000 { edited[i] ^= 0xFF }
        let old = list(of: Self.data), new = list(of: edited)
        let plan = DeltaPlan(target: new, sources: [old])
        #expect(plan.bytesReused + plan.bytesToFetch == new.fileSize)
        #expect(plan.bytesToFetch >= 100_000 && plan.bytesToFetch <= 100_000 + 2 * Int64(ContentDefinedChunker.maxSize) + 1)
        #expect(plan.fetches.count == 1)
        // Every copy really is the same bytes in the old file.
        for c in plan.copies {
            #expect(edited[Int(c.targetOffset)..<Int(c.targetOffset) + c.length] == Self.data[Int(c.sourceOffset)..<Int(c.sourceOffset) + c.length])
        }
        // Nothing in common: whole chunks joined, no request above the cap.
        let other = list(of: randomBytes(20 << 20, seed: 99))
        let full = DeltaPlan(target: other, sources: [old], maxRequestBytes: 8 << 20)
        #expect(full.copies.isEmpty && full.bytesToFetch == other.fileSize)
        #expect(full.fetches.count == 3 && full.fetches.allSatisfy { $0.length <= 8 << 20 })
        #expect(full.fetches.map(\.chunks.count).reduce(0, +) == other.chunks.count)
    }
}

struct ChunkListFormatTests {
    static let sample = list(of: randomBytes(600_000, seed: 5))

    @Test func encoded_isTheSPECLayout_andRoundTrips_SPEC14() throws {
        let bytes = Self.sample.encoded()
        #expect(Array(bytes[0..<8]) == Array("MDCHUNK1".utf8))
        #expect(Array(bytes[8..<16]) == [0, 0, 0, 0, 0, 0x09, 0x27, 0xC0])   // 600,000
        #expect(Array(bytes[16..<20]) == [0, 0, 0, UInt8(Self.sample.chunks.count)])
        #expect(Array(bytes[20..<24]) == [0, 0, 0, 0])
        #expect(bytes.count == 24 + 36 * Self.sample.chunks.count)
        let first = Self.sample.chunks[0]
        #expect(Array(bytes[24..<28]) == [0, UInt8(first.length >> 16), UInt8(first.length >> 8 & 0xFF), UInt8(first.length & 0xFF)])
        #expect(Array(bytes[28..<60]) == first.sha256.bytes)
        #expect(try ChunkList(decoding: bytes) == Self.sample)
        #expect(try ChunkList(decoding: ChunkList(fileSize: 0, chunks: []).encoded()).chunks.isEmpty)
    }

    @Test func reader_refusesWhatTheWriterWouldNotWrite() {
        let good = Self.sample.encoded()
        func refused(_ bytes: [UInt8]) -> ChunkListError? {
            do { _ = try ChunkList(decoding: bytes); return nil } catch { return error }
        }
        #expect(refused(Array(good[0..<23])) == .truncated)
        #expect(refused(Array(good.dropLast())) == .truncated)
        #expect(refused(good + [0]) == .trailingBytes)
        var magic = good; magic[7] = UInt8(ascii: "2")
        #expect(refused(magic) == .badMagic)
        var flags = good; flags[23] = 1
        #expect(refused(flags) == .unknownFlags(1))
        var size = good; size[15] &+= 1
        #expect(refused(size) == .sizeMismatch)
        var zero = good; zero[24..<28] = [0, 0, 0, 0]
        #expect(refused(zero) == .badLength(index: 0, 0))
        var huge = good; huge[24..<28] = [0, 2, 0, 1]
        #expect(refused(huge) == .badLength(index: 0, 131_073))
        // A count far beyond the bytes present is refused before anything is allocated for it.
        var count = good; count[16..<20] = [0xFF, 0xFF, 0xFF, 0xFF]
        #expect(refused(count) == .truncated)
    }
}

import CryptoPrimitives
import Testing
@testable import TensorPack

/// Packs and patches of weight-like data decode to exactly their input (SPEC §16).
struct PackRoundTripTests {
    static let float32: [Float] = { var w = Weights(seed: 40); return w.float32(count: 300_000) }()   // 1.2 MB: 2 blocks
    static let fineTuned: [Float] = { var w = Weights(seed: 41); return w.fineTune(float32, relativeChange: 1e-3) }()

    @Test func float32_packsWithWidth4_smaller_andDecodes_SPEC16() throws {
        let bytes = littleEndianBytes(Self.float32)
        let packed = TensorPack.pack(bytes)
        let header = try PackHeader(decoding: Array(packed[0..<PackHeader.fixedSize + 2 * PackHeader.entrySize]))
        #expect(header.width == 4)
        #expect(header.kind == .pack && header.blockCount == 2 && header.fileSize == Int64(packed.count))
        #expect(Double(packed.count) / Double(bytes.count) < 0.9, "float32 weights: \(packed.count) of \(bytes.count)")
        #expect(try TensorPack.decode(packed) == bytes)
    }

    /// Two-byte words: planes of width 2 (or 4, which splits them as well).
    @Test func float16_packsWithWidth2Or4_andDecodes() throws {
        let bytes = littleEndianBytes16(Self.float32)
        let packed = TensorPack.pack(bytes)
        #expect(packed[9] == 2 || packed[9] == 4)
        #expect(packed.count < bytes.count)
        #expect(try TensorPack.decode(packed) == bytes)
    }

    @Test func fineTunePatch_isSmallerThanThePack_andRebuildsTheNewFile_SPEC16() throws {
        let old = littleEndianBytes(Self.float32), new = littleEndianBytes(Self.fineTuned)
        let patch = TensorPack.patch(from: old, to: new)
        #expect(patch[8] == PackHeader.Kind.patch.rawValue)
        #expect(Double(patch.count) / Double(new.count) < 0.6, "patch \(patch.count) of \(new.count)")
        #expect(patch.count < TensorPack.pack(new).count)
        #expect(try TensorPack.decode(patch, base: old) == new)
    }

    /// The XOR covers the common length; the rest of the new file travels as it is.
    @Test(arguments: [(1 << 20) + 5, 1_300_000])
    func patch_fromABaseOfAnotherLength_rebuildsTheNewFile(baseLength: Int) throws {
        let new = littleEndianBytes(Self.fineTuned)
        let old = Array(littleEndianBytes(Self.float32).prefix(baseLength)) + [UInt8](repeating: 7, count: max(0, baseLength - new.count))
        #expect(try TensorPack.decode(TensorPack.patch(from: old, to: new), base: old) == new)
    }

    @Test func noise_isStoredBlockByBlock_atTheCostOfTheIndexAndAByteABlock() throws {
        var w = Weights(seed: 42)
        let bytes = w.bytes(2 << 20)
        let packed = TensorPack.pack(bytes)
        #expect(packed.count == PackHeader.fixedSize + 2 * PackHeader.entrySize + 2 * (1 + (1 << 20)))
        #expect(packed[PackHeader.fixedSize + 2 * PackHeader.entrySize] == BlockMethod.stored.rawValue)
        #expect(try TensorPack.decode(packed) == bytes)
    }

    @Test func emptyAndTinyFiles_roundTrip() throws {
        for bytes in [[], [1], [1, 2, 3], Array(repeating: UInt8(0), count: 4099)] as [[UInt8]] {
            #expect(try TensorPack.decode(TensorPack.pack(bytes)) == bytes)
            #expect(try TensorPack.decode(TensorPack.patch(from: [9, 9], to: bytes), base: [9, 9]) == bytes)
        }
    }

    @Test(arguments: PackHeader.widths)
    func everyWidth_decodes(width: Int) throws {
        let bytes = littleEndianBytes(Self.float32)
        #expect(try TensorPack.decode(TensorPack.pack(bytes, width: width)) == bytes)
    }

    /// Streamed in odd pieces, the decoder hands out the same blocks as from one buffer.
    @Test func streamedInPieces_givesTheSameBlocks() throws {
        let bytes = littleEndianBytes(Self.float32)
        #expect(try TensorPack.decode(TensorPack.pack(bytes), pieceSize: 65_537) == bytes)
    }

    /// A reader that has block 0 resumes at block 1's offset with the header it read.
    @Test func resumesByRange_atABlockOffset() throws {
        let old = littleEndianBytes(Self.float32), new = littleEndianBytes(Self.fineTuned)
        let patch = TensorPack.patch(from: old, to: new)
        let header = try PackHeader(decoding: Array(patch[0..<PackHeader.fixedSize + 2 * PackHeader.entrySize]))
        var decoder = try PackStreamDecoder(resuming: header, at: 1, base: BytesBase(old))
        patch[Int(header.offsets[1])...].withUnsafeBytes { decoder.append($0) }
        var out: [UInt8] = []
        while let block = try decoder.nextBlock() { out += block }
        try decoder.finish()
        #expect(out == Array(new[(1 << 20)...]))
    }
}

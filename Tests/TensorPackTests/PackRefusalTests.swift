import Testing
@testable import TensorPack

/// Damaged or mismatched MDPACK1 data is refused with an error that names the fault (SPEC §16:
/// the client checks every block and falls back).
struct PackRefusalTests {
    static let bytes: [UInt8] = { var w = Weights(seed: 50); return littleEndianBytes(w.float32(count: 10_000)) }()
    static let packed = TensorPack.pack(bytes)
    /// One block: the header and a one-entry index, then the block.
    static let block = PackHeader.fixedSize + PackHeader.entrySize

    static func damaged(_ edit: (inout [UInt8]) -> Void) -> [UInt8] {
        var copy = packed
        edit(&copy)
        return copy
    }

    static func refusal(_ coded: [UInt8], base: [UInt8]? = nil) -> PackError? {
        do throws(PackError) { _ = try TensorPack.decode(coded, base: base); return nil } catch { return error }
    }

    @Test func header_faults_areNamed() {
        #expect(Self.refusal(Self.damaged { $0[0] = UInt8(ascii: "X") }) == .badMagic)
        #expect(Self.refusal(Self.damaged { $0[8] = 2 }) == .badHeader("unknown kind 2"))
        #expect(Self.refusal(Self.damaged { $0[9] = 3 }) == .badHeader("width 3 is not 1, 2 or 4"))
        #expect(Self.refusal(Self.damaged { $0[11] = 1 }) == .badHeader("reserved bytes are not zero"))
        #expect(Self.refusal(Self.damaged { $0[14] = 1 }) == .badHeader("block size 1048832, expected 1048576"))
        #expect(Self.refusal(Self.damaged { $0[99] = 2 }) == .badHeader("2 blocks for 40000 bytes, expected 1"))
        #expect(Self.refusal(Self.damaged { $0[16] = 0x7f }) != nil)   // an output size past the limit
        #expect(Self.refusal(Self.damaged { $0[107] += 1 }) == .badHeader("block 0 at offset 145, expected 144"))
        #expect(Self.refusal(Self.damaged { $0[56 + 7] = 1 }) == .badHeader("a pack names a base"))
        #expect(Self.refusal(Self.damaged { for i in 108..<112 { $0[i] = 0 } }) == .badHeader("block 0 has coded length 0 for 40000 bytes"))
    }

    @Test func cutShort_orWithBytesAfter_isRefused() {
        #expect(Self.refusal(Array(Self.packed.dropLast())) == .truncated)
        #expect(Self.refusal(Array(Self.packed.prefix(50))) == .truncated)
        #expect(Self.refusal(Self.packed + [0]) == .trailingBytes)
    }

    @Test func damagedBlock_isRefusedBeforeItsBytesAreTrusted() {
        #expect(Self.packed[Self.block] == BlockMethod.bytePlanes.rawValue || Self.packed[Self.block] == BlockMethod.bitPlanes.rawValue)
        #expect(Self.refusal(Self.damaged { $0[Self.block] = 9 }) == .badBlock(index: 0, "unknown coding method 9"))
        #expect(Self.refusal(Self.damaged { $0[Self.block + 1] = 0xff }) != nil)
        // A bit flipped anywhere in the coded planes: zlib refuses it, or the block's SHA-256 does.
        for offset in stride(from: Self.block + 40, to: Self.packed.count, by: 997) {
            let error = Self.refusal(Self.damaged { $0[offset] ^= 0x10 })
            switch error {
            case .badBlock(index: 0, _)?, .blockDigestMismatch(index: 0)?: continue
            default: Issue.record("flipped byte at \(offset): \(String(describing: error))")
            }
        }
    }

    @Test func digests_inTheIndexAndHeader_areChecked() {
        #expect(Self.refusal(Self.damaged { $0[112] ^= 1 }) == .blockDigestMismatch(index: 0))
        #expect(Self.refusal(Self.damaged { $0[24] ^= 1 }) == .fileDigestMismatch)
    }

    @Test func patch_needsItsBase() {
        let new = Self.bytes.map { $0 ^ 1 }
        let patch = TensorPack.patch(from: Self.bytes, to: new)
        #expect(Self.refusal(patch) == .wrongBase("a patch needs the file it was made from"))
        #expect(Self.refusal(patch, base: Array(Self.bytes.dropLast())) == .wrongBase("the base is 39999 bytes, the patch was made from 40000"))
        #expect(Self.refusal(patch, base: new) == .blockDigestMismatch(index: 0))
        #expect(Self.refusal(Self.packed, base: Self.bytes) == .wrongBase("this is a packed file, not a patch"))
    }
}

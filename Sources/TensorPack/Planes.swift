/// The two transpositions of MDPACK1 (SPEC §16), pure and allocation-free. A block of n words
/// of `width` bytes becomes planes laid end to end in `planes`:
/// - byte planes (Blosc's shuffle): plane i holds byte i of every word, n bytes each;
/// - bit planes (Blosc's bitshuffle): plane 8·i + b holds bit b (0 = least significant) of
///   byte i of every word, n/8 bytes each, word k's bit at bit k % 8 of byte k / 8 (n is a
///   multiple of 8).
/// Trained float weights repeat their sign and exponent bytes and an XOR of two versions leaves
/// high bits zero; both become long runs deflate can see once they stand together.
enum Planes {
    static func splitBytes(_ words: UnsafeRawBufferPointer, width: Int, into planes: UnsafeMutableRawBufferPointer) {
        let n = words.count / width
        precondition(words.count == n * width && planes.count == words.count, "planes need whole words")
        let src = words.bindMemory(to: UInt8.self), dst = planes.bindMemory(to: UInt8.self)
        // Float32 and float16 words: one load per word rather than one per byte (decoding speed).
        if width == 4, let from = words.baseAddress, let p0 = dst.baseAddress {
            for k in 0..<n {
                let v = UInt32(littleEndian: from.loadUnaligned(fromByteOffset: 4 * k, as: UInt32.self))
                p0[k] = UInt8(truncatingIfNeeded: v)
                p0[n + k] = UInt8(truncatingIfNeeded: v >> 8)
                p0[2 * n + k] = UInt8(truncatingIfNeeded: v >> 16)
                p0[3 * n + k] = UInt8(truncatingIfNeeded: v >> 24)
            }
            return
        }
        for i in 0..<width {
            let plane = dst.baseAddress! + i * n
            var at = i
            for k in 0..<n {
                plane[k] = src[at]
                at += width
            }
        }
    }

    static func joinBytes(_ planes: UnsafeRawBufferPointer, width: Int, into words: UnsafeMutableRawBufferPointer, xor: Bool = false) {
        let n = planes.count / width
        precondition(planes.count == n * width && words.count == planes.count, "planes need whole words")
        guard n > 0, let from = planes.baseAddress else { return }
        joinBytes((0..<width).map { from + $0 * n }, into: words, xor: xor)
    }

    /// The same from planes anywhere, `words.count / planes.count` bytes each: a decoder joins a
    /// stored plane straight from the coded bytes, with no copy. With `xor`, the words are XORed
    /// into `words` (a patch: the base's block is there already) instead of stored.
    static func joinBytes(_ planes: [UnsafeRawPointer], into words: UnsafeMutableRawBufferPointer, xor: Bool = false) {
        let width = planes.count, n = words.count / width
        precondition(words.count == n * width, "planes need whole words")
        guard n > 0, let to = words.baseAddress else { return }
        if width == 1 {
            if xor { return ByteXOR.apply(UnsafeRawBufferPointer(start: planes[0], count: n), to: words) }
            return to.copyMemory(from: planes[0], byteCount: n)
        }
        // Float32 and float16 words: 16 words a step in vector registers (decoding speed), the
        // last few byte by byte.
        var k = 0
        #if _endian(little)
        if width == 4 {
            let (p0, p1, p2, p3) = (planes[0], planes[1], planes[2], planes[3])
            while k + 16 <= n {
                var v = widen(p0, k, as: UInt32.self) | widen(p1, k, as: UInt32.self) &<< 8
                    | widen(p2, k, as: UInt32.self) &<< 16 | widen(p3, k, as: UInt32.self) &<< 24
                if xor { v ^= to.loadUnaligned(fromByteOffset: 4 * k, as: SIMD16<UInt32>.self) }
                to.storeBytes(of: v, toByteOffset: 4 * k, as: SIMD16<UInt32>.self)
                k += 16
            }
        } else if width == 2 {
            let (p0, p1) = (planes[0], planes[1])
            while k + 16 <= n {
                var v = widen(p0, k, as: UInt16.self) | widen(p1, k, as: UInt16.self) &<< 8
                if xor { v ^= to.loadUnaligned(fromByteOffset: 2 * k, as: SIMD16<UInt16>.self) }
                to.storeBytes(of: v, toByteOffset: 2 * k, as: SIMD16<UInt16>.self)
                k += 16
            }
        }
        #endif
        for (i, plane) in planes.enumerated() {
            for j in k..<n {
                let byte = plane.load(fromByteOffset: j, as: UInt8.self)
                to.storeBytes(of: xor ? byte ^ to.load(fromByteOffset: j * width + i, as: UInt8.self) : byte, toByteOffset: j * width + i, as: UInt8.self)
            }
        }
    }

    /// The 16 bytes at `offset`, each widened to a lane of `T`.
    @inline(__always)
    private static func widen<T: FixedWidthInteger & SIMDScalar>(_ base: UnsafeRawPointer, _ offset: Int, as: T.Type) -> SIMD16<T> {
        SIMD16<T>(truncatingIfNeeded: base.loadUnaligned(fromByteOffset: offset, as: SIMD16<UInt8>.self))
    }

    /// Bit planes through byte planes: `scratch` (words.count bytes) takes the byte planes, then
    /// each run of 8 bytes of a byte plane is one 8×8 bit matrix, transposed in a register.
    static func splitBits(_ words: UnsafeRawBufferPointer, width: Int, scratch: UnsafeMutableRawBufferPointer,
                          into planes: UnsafeMutableRawBufferPointer) {
        let n = words.count / width
        precondition(n % 8 == 0 && scratch.count == words.count && planes.count == words.count, "bit planes need words in eights")
        splitBytes(words, width: width, into: scratch)
        let groups = n / 8
        let src = UnsafeRawPointer(scratch.baseAddress!), dst = planes.baseAddress!.assumingMemoryBound(to: UInt8.self)
        for i in 0..<width {
            let bytePlane = src + i * n
            let firstBitPlane = dst + 8 * i * groups
            for g in 0..<groups {
                let t = transpose8x8(UInt64(littleEndian: bytePlane.loadUnaligned(fromByteOffset: 8 * g, as: UInt64.self)))
                for b in 0..<8 { firstBitPlane[b * groups + g] = UInt8(truncatingIfNeeded: t >> UInt64(8 * b)) }
            }
        }
    }

    static func joinBits(_ planes: UnsafeRawBufferPointer, width: Int, scratch: UnsafeMutableRawBufferPointer,
                         into words: UnsafeMutableRawBufferPointer, xor: Bool = false) {
        let n = planes.count / width
        precondition(n % 8 == 0 && scratch.count == planes.count && words.count == planes.count, "bit planes need words in eights")
        let groups = n / 8
        let src = planes.baseAddress!.assumingMemoryBound(to: UInt8.self), dst = scratch.baseAddress!
        for i in 0..<width {
            let firstBitPlane = src + 8 * i * groups
            let bytePlane = dst + i * n
            for g in 0..<groups {
                var m: UInt64 = 0
                for b in 0..<8 { m |= UInt64(firstBitPlane[b * groups + g]) << UInt64(8 * b) }
                bytePlane.storeBytes(of: transpose8x8(m).littleEndian, toByteOffset: 8 * g, as: UInt64.self)
            }
        }
        joinBytes(UnsafeRawBufferPointer(scratch), width: width, into: words, xor: xor)
    }

    /// Transposes the 8×8 bit matrix whose row r is byte r (little-endian) and column c bit c:
    /// three rounds of swapping off-diagonal 1×1, 2×2 and 4×4 blocks (Hacker's Delight §7-3).
    /// Its own inverse.
    @inline(__always)
    static func transpose8x8(_ m: UInt64) -> UInt64 {
        var x = m
        var t = (x ^ (x >> 7)) & 0x00AA_00AA_00AA_00AA
        x ^= t ^ (t << 7)
        t = (x ^ (x >> 14)) & 0x0000_CCCC_0000_CCCC
        x ^= t ^ (t << 14)
        t = (x ^ (x >> 28)) & 0x0000_0000_F0F0_F0F0
        x ^= t ^ (t << 28)
        return x
    }
}

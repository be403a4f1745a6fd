#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One block's coding (docs/decisions/tensor-pack.md): a method byte, then
/// - 0, stored: the block's bytes;
/// - 1, byte planes, or 2, bit planes: p coded plane lengths (u32 BE; p = width, or 8·width),
///   the p planes back to back, then the block's tail verbatim (the bytes past the last whole
///   word, or past the last whole 8 words for bit planes). A plane whose length equals its
///   decoded length is stored; a shorter one is a zlib stream.
enum BlockMethod: UInt8 {
    case stored = 0, bytePlanes = 1, bitPlanes = 2

    /// For a block of `length` bytes: the planes, each one's decoded length, and where the tail starts.
    func shape(length: Int, width: Int) -> (planes: Int, planeLength: Int, tailStart: Int) {
        switch self {
        case .stored: return (0, 0, 0)
        case .bytePlanes:
            let words = length / width
            return (width, words, words * width)
        case .bitPlanes:
            let words = length / (8 * width) * 8
            return (8 * width, words / 8, words * width)
        }
    }
}

/// Codes blocks of one width: both transpositions, the smaller kept, stored when neither is
/// smaller than the block. Deflate is the cost of publishing, so it skips what cannot pay: a
/// plane whose order-0 entropy (a byte histogram, ~1 ms a MiB) is within 0.1 % of its length is
/// noise (mantissa bytes) and is stored without trying. Not a wider margin: real weights repeat
/// whole tensors, which deflate finds and a histogram does not (silero-vad's planes at 99.8 %
/// of the bound deflate to 90 %). Owns its buffers and zlib stream: one per encoding thread.
final class BlockEncoder {
    let width: Int
    private let deflater: PlaneDeflater
    private var planes = ScratchBuffer(), scratch = ScratchBuffer(), deflated = ScratchBuffer()
    private var counts = [Int](repeating: 0, count: 256)

    init(width: Int, level: Int32) {
        precondition(PackHeader.widths.contains(width), "width is 1, 2 or 4")
        self.width = width
        deflater = PlaneDeflater(level: level)
    }

    func encode(_ block: UnsafeRawBufferPointer) -> [UInt8] {
        precondition(block.count <= PackHeader.blockSize, "a block is at most 1 MiB")
        var best: [UInt8]?
        for method in [BlockMethod.bytePlanes, .bitPlanes] {
            if let coded = code(block, method, under: best?.count ?? 1 + block.count) { best = coded }
        }
        return best ?? [BlockMethod.stored.rawValue] + block
    }

    /// The smaller entropy bound of the block's two codings: how the width is chosen.
    func estimatedSize(_ block: UnsafeRawBufferPointer) -> Int {
        min(estimate(block, .bytePlanes), estimate(block, .bitPlanes), 1 + block.count)
    }

    /// The block coded by `method`, or nil as soon as it reaches `limit` bytes.
    func code(_ block: UnsafeRawBufferPointer, _ method: BlockMethod, under limit: Int) -> [UInt8]? {
        let (count, planeLength, tailStart) = method.shape(length: block.count, width: width)
        let planes = split(block, method), deflated = self.deflated.prefix(planeLength)
        var out = [method.rawValue] + [UInt8](repeating: 0, count: 4 * count)
        out.reserveCapacity(min(limit, PackHeader.maxCodedLength(decoded: block.count, width: width)))
        for j in 0..<count {
            let plane = UnsafeRawBufferPointer(rebasing: planes[j * planeLength..<(j + 1) * planeLength])
            let room = UnsafeMutableRawBufferPointer(rebasing: deflated[0..<max(planeLength - 1, 0)])
            let length: Int
            if Self.promisesSaving(bound(plane), of: planeLength), let n = deflater.deflate(plane, into: room) {
                out += UnsafeRawBufferPointer(rebasing: deflated[0..<n])
                length = n
            } else {
                out += plane
                length = planeLength
            }
            for b in 0..<4 { out[1 + 4 * j + b] = UInt8(truncatingIfNeeded: length >> (24 - 8 * b)) }
            if out.count >= limit { return nil }
        }
        out += UnsafeRawBufferPointer(rebasing: block[tailStart...])
        return out.count < limit ? out : nil
    }

    /// A plane is worth deflating unless its bound is within 0.1 % of its length.
    private static func promisesSaving(_ bound: Int, of length: Int) -> Bool { 1000 * bound < 999 * length }

    /// The coded size `method` would reach if every plane met its bound (stored when it would not save).
    private func estimate(_ block: UnsafeRawBufferPointer, _ method: BlockMethod) -> Int {
        let (count, planeLength, tailStart) = method.shape(length: block.count, width: width)
        let planes = split(block, method)
        var size = 1 + 4 * count + block.count - tailStart
        for j in 0..<count {
            let b = bound(UnsafeRawBufferPointer(rebasing: planes[j * planeLength..<(j + 1) * planeLength]))
            size += Self.promisesSaving(b, of: planeLength) ? b : planeLength
        }
        return size
    }

    /// The block's whole words as `method`'s planes, end to end.
    private func split(_ block: UnsafeRawBufferPointer, _ method: BlockMethod) -> UnsafeMutableRawBufferPointer {
        let tailStart = method.shape(length: block.count, width: width).tailStart
        let words = UnsafeRawBufferPointer(rebasing: block[0..<tailStart])
        let planes = self.planes.prefix(tailStart)
        if method == .bitPlanes {
            Planes.splitBits(words, width: width, scratch: scratch.prefix(tailStart), into: planes)
        } else {
            Planes.splitBytes(words, width: width, into: planes)
        }
        return planes
    }

    /// Shannon's bound for the plane's bytes taken one by one (order-0 entropy), in bytes.
    private func bound(_ plane: UnsafeRawBufferPointer) -> Int {
        guard !plane.isEmpty else { return 0 }
        counts.withUnsafeMutableBufferPointer { c in
            c.update(repeating: 0)
            for byte in plane { c[Int(byte)] += 1 }
        }
        let n = Double(plane.count)
        var bits = 0.0
        for c in counts where c > 0 { bits += Double(c) * log2(n / Double(c)) }
        return Int((bits / 8).rounded(.up))
    }
}

/// Decodes blocks, refusing any coding the encoder could not have written before a byte of
/// output is trusted. One per decoding thread.
final class BlockDecoder {
    private let inflater = PlaneInflater()
    private var planes = ScratchBuffer(), scratch = ScratchBuffer()

    /// Decodes block `index` (for the error) of `output.count` bytes from `coded`; with `xor`,
    /// XORs them into `output` (a patch, the base's bytes there already) instead.
    func decode(_ coded: UnsafeRawBufferPointer, width: Int, index: Int, into output: UnsafeMutableRawBufferPointer,
                xor: Bool = false) throws(PackError) {
        let length = output.count
        guard let first = coded.first else { throw .badBlock(index: index, "is empty") }
        guard let method = BlockMethod(rawValue: first) else { throw .badBlock(index: index, "unknown coding method \(first)") }
        if method == .stored {
            guard coded.count == 1 + length else { throw .badBlock(index: index, "stored block of \(coded.count - 1) bytes, expected \(length)") }
            Self.put(UnsafeRawBufferPointer(rebasing: coded[1...]), into: output, xor: xor)
            return
        }
        let (count, planeLength, tailStart) = method.shape(length: length, width: width)
        let planes = self.planes.prefix(tailStart)
        var at = 1 + 4 * count
        guard coded.count >= at else { throw .badBlock(index: index, "ends inside its plane lengths") }
        var lengths: [Int] = []
        lengths.reserveCapacity(count)
        for j in 0..<count {
            let n = (0..<4).reduce(0) { $0 << 8 | Int(coded[1 + 4 * j + $1]) }
            guard n <= planeLength else { throw .badBlock(index: index, "plane \(j) is \(n) bytes, longer than its \(planeLength) decoded") }
            lengths.append(n)
        }
        guard at + lengths.reduce(0, +) + (length - tailStart) == coded.count else {
            throw .badBlock(index: index, "plane lengths and tail do not add up to the coded length \(coded.count)")
        }
        // Byte planes are joined from where they are: a stored plane from the coded bytes (no
        // copy), an inflated one from `planes`. Bit planes are transposed from `planes` whole.
        var sources: [UnsafeRawPointer] = []
        sources.reserveCapacity(count)
        for (j, n) in lengths.enumerated() {
            let source = UnsafeRawBufferPointer(rebasing: coded[at..<at + n])
            let plane = UnsafeMutableRawBufferPointer(rebasing: planes[j * planeLength..<(j + 1) * planeLength])
            let stored = n == planeLength
            if !stored, let why = inflater.inflate(source, into: plane) { throw .badBlock(index: index, "plane \(j) \(why)") }
            if stored, method == .bitPlanes { plane.copyMemory(from: source) }
            if method == .bytePlanes, let start = (stored ? source : UnsafeRawBufferPointer(plane)).baseAddress { sources.append(start) }
            at += n
        }
        let words = UnsafeMutableRawBufferPointer(rebasing: output[0..<tailStart])
        if method == .bitPlanes {
            Planes.joinBits(UnsafeRawBufferPointer(rebasing: planes[0..<tailStart]), width: width, scratch: scratch.prefix(tailStart), into: words, xor: xor)
        } else if tailStart > 0 {
            Planes.joinBytes(sources, into: words, xor: xor)
        }
        Self.put(UnsafeRawBufferPointer(rebasing: coded[at...]), into: UnsafeMutableRawBufferPointer(rebasing: output[tailStart...]), xor: xor)
    }

    /// Verbatim bytes (a stored block, a tail) into `output`, or XORed into it.
    private static func put(_ bytes: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer, xor: Bool) {
        if xor { ByteXOR.apply(bytes, to: output) } else { output.copyMemory(from: bytes) }
    }
}

/// Working memory that grows to the largest block seen and no further: a small file (or a fuzz
/// input) never pays for 1 MiB buffers, a large one allocates them once.
struct ScratchBuffer: ~Copyable {
    private var storage = UnsafeMutableRawBufferPointer.allocate(byteCount: 64, alignment: 16)

    deinit { storage.deallocate() }

    /// The first `count` bytes, grown to hold them (contents not kept).
    mutating func prefix(_ count: Int) -> UnsafeMutableRawBufferPointer {
        if storage.count < count {
            storage.deallocate()
            storage = .allocate(byteCount: count, alignment: 16)
        }
        return UnsafeMutableRawBufferPointer(rebasing: storage[0..<count])
    }
}

import CryptoPrimitives

/// Codes an output file block by block, front to back (SPEC §16): a pack codes the file's own
/// bytes, a patch the file XOR its base over their common length (the rest verbatim). It keeps
/// each block's coded length and SHA-256 for the index, and hands the coded blocks back, so the
/// caller decides where they go (a file, a count, memory). Pure: no I/O.
public struct PackEncoder {
    /// zlib's default level (9 was not measured against it).
    public static let defaultLevel: Int32 = 6

    public let kind: PackHeader.Kind
    public var width: Int { encoder.width }
    private let encoder: BlockEncoder
    private var codedLengths: [Int] = []
    private var digests: [UInt8] = []
    private var xored: [UInt8] = []

    public init(kind: PackHeader.Kind, width: Int, level: Int32 = defaultLevel) {
        self.kind = kind
        encoder = BlockEncoder(width: width, level: level)
    }

    /// Codes the next block of the output (1 MiB, the last one shorter). For a patch, `base`
    /// holds the base's bytes at the same offset, possibly fewer or none (past the base's end).
    public mutating func encode(_ block: UnsafeRawBufferPointer, base: UnsafeRawBufferPointer = UnsafeRawBufferPointer(start: nil, count: 0)) -> [UInt8] {
        precondition(kind == .patch || base.isEmpty, "a pack has no base")
        var hasher = SHA256()
        hasher.update(bufferPointer: block)
        digests += hasher.finalize()
        let coded: [UInt8]
        if base.isEmpty {
            coded = encoder.encode(block)
        } else {
            xored.removeAll(keepingCapacity: true)
            xored.append(contentsOf: block)
            xored.withUnsafeMutableBytes { ByteXOR.apply(UnsafeRawBufferPointer(rebasing: base.prefix(block.count)), to: $0) }
            coded = xored.withUnsafeBytes { encoder.encode($0) }
        }
        codedLengths.append(coded.count)
        return coded
    }

    /// The header and index once every block is coded.
    public func header(outputSize: Int64, outputSHA256: [UInt8], baseSize: Int64 = 0,
                       baseSHA256: [UInt8] = [UInt8](repeating: 0, count: 32)) -> PackHeader {
        PackHeader(kind: kind, width: width, outputSize: outputSize, outputSHA256: outputSHA256, baseSize: baseSize,
                   baseSHA256: baseSHA256, codedLengths: codedLengths, digests: digests)
    }

    /// The width that codes `samples` (blocks of the file, XORed with the base for a patch)
    /// smallest, by trying each (SPEC §16: "w chosen by trying") against the planes' entropy
    /// bounds, which rank widths as deflate does at a fraction of its cost; the narrowest on a tie.
    public static func chooseWidth(samples: [[UInt8]], level: Int32 = defaultLevel) -> Int {
        let sizes = PackHeader.widths.map { width in
            let encoder = BlockEncoder(width: width, level: level)
            return samples.reduce(0) { sum, sample in sum + sample.withUnsafeBytes { encoder.estimatedSize($0) } }
        }
        return PackHeader.widths[sizes.firstIndex(of: sizes.min()!)!]
    }
}

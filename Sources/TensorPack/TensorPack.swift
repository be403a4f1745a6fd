import CryptoPrimitives

/// MDPACK1 of bytes in memory: packs and patches of small files, tests and the fuzz targets.
/// Files of any size go through TensorPackFiles, block by block, on the same encoder and decoder.
public enum TensorPack {
    /// Which blocks of a file of `blockCount` blocks the width is tried on: up to four, spread
    /// evenly (the first holds headers and small tensors, the rest the bulk of the weights).
    public static func sampleBlocks(blockCount: Int) -> [Int] {
        let count = min(blockCount, 4)
        return (0..<count).map { $0 * blockCount / count }
    }

    public static func pack(_ bytes: [UInt8], width: Int? = nil, level: Int32 = PackEncoder.defaultLevel) -> [UInt8] {
        code(bytes, base: [], kind: .pack, width: width, level: level)
    }

    /// `new` as a patch from `base`: new XOR base over their common length, the rest verbatim.
    public static func patch(from base: [UInt8], to new: [UInt8], width: Int? = nil, level: Int32 = PackEncoder.defaultLevel) -> [UInt8] {
        code(new, base: base, kind: .patch, width: width, level: level)
    }

    /// The file a pack (or a patch applied to `base`) holds, every block and the whole checked;
    /// fed to the stream decoder `pieceSize` bytes at a time (the fuzz targets vary it).
    public static func decode(_ coded: [UInt8], base: [UInt8]? = nil, pieceSize: Int = .max) throws(PackError) -> [UInt8] {
        var decoder = PackStreamDecoder(base: base.map(BytesBase.init))
        var out: [UInt8] = []
        for start in stride(from: 0, to: coded.count, by: pieceSize) {
            coded[start..<min(start + pieceSize, coded.count)].withUnsafeBytes { decoder.append($0) }
            while let block = try decoder.nextBlock() { out += block }
        }
        try decoder.finish()
        return out
    }

    private static func code(_ bytes: [UInt8], base: [UInt8], kind: PackHeader.Kind, width: Int?, level: Int32) -> [UInt8] {
        let blocks = stride(from: 0, to: bytes.count, by: PackHeader.blockSize).map { $0..<min($0 + PackHeader.blockSize, bytes.count) }
        func baseRange(_ block: Range<Int>) -> Range<Int> { min(block.lowerBound, base.count)..<min(block.upperBound, base.count) }
        let width = width ?? PackEncoder.chooseWidth(samples: sampleBlocks(blockCount: blocks.count).map { i in
            var sample = Array(bytes[blocks[i]])
            base[baseRange(blocks[i])].withUnsafeBytes { b in sample.withUnsafeMutableBytes { ByteXOR.apply(b, to: $0) } }
            return sample
        }, level: level)
        var encoder = PackEncoder(kind: kind, width: width, level: level)
        var body: [UInt8] = []
        for block in blocks {
            body += bytes[block].withUnsafeBytes { new in base[baseRange(block)].withUnsafeBytes { encoder.encode(new, base: $0) } }
        }
        let header = encoder.header(outputSize: Int64(bytes.count), outputSHA256: Array(SHA256.hash(data: bytes)),
                                    baseSize: Int64(base.count),
                                    baseSHA256: kind == .patch ? Array(SHA256.hash(data: base)) : [UInt8](repeating: 0, count: 32))
        return header.encoded() + body
    }
}

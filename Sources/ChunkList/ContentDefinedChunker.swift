/// Content-defined chunking by a gear rolling hash (SPEC §14), in the FastCDC style of
/// fastcdc-rs and xet-core: `hash = (hash << 1) &+ gear[byte]`, so bit k of the hash depends on
/// the last k+1 bytes only and the masks test the top bits (a 64-byte window). A cut comes
/// where the masked bits are all zero: harder before the average size (`maskBeforeAverage`,
/// 18 bits) and easier after it (`maskAfterAverage`, 14 bits), which packs chunk sizes around
/// the 64 KiB average; never before 8 KiB (those bytes are skipped, not hashed), always at
/// 128 KiB. Pure and allocation-free; hashing the chunks is a separate pass.
public enum ContentDefinedChunker {
    public static let minSize = 8 * 1024
    public static let averageSize = 64 * 1024
    public static let maxSize = 128 * 1024

    static let maskBeforeAverage: UInt64 = ~0 << (64 - 18)
    static let maskAfterAverage: UInt64 = ~0 << (64 - 14)

    /// The length of the chunk that starts at the beginning of `bytes`. `bytes` must hold at
    /// least `maxSize` bytes unless it ends at the end of the data (then the rest may be one
    /// shorter chunk).
    public static func cut(_ bytes: UnsafeRawBufferPointer) -> Int {
        let count = bytes.count
        if count <= minSize { return count }
        let end = min(count, maxSize)
        let normal = min(end, averageSize)
        return gearTable.withUnsafeBufferPointer { gear in
            let base = bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
            var hash: UInt64 = 0
            var i = minSize
            while i < normal {
                hash = (hash << 1) &+ gear[Int(base[i])]
                i += 1
                if hash & maskBeforeAverage == 0 { return i }
            }
            while i < end {
                hash = (hash << 1) &+ gear[Int(base[i])]
                i += 1
                if hash & maskAfterAverage == 0 { return i }
            }
            return end
        }
    }

    /// Every chunk of `bytes` in order, as ranges that tile it.
    public static func chunks(_ bytes: [UInt8]) -> [Range<Int>] {
        bytes.withUnsafeBytes { raw in
            var ranges: [Range<Int>] = []
            var start = 0
            while start < raw.count {
                let length = cut(UnsafeRawBufferPointer(rebasing: raw[start...]))
                ranges.append(start..<start + length)
                start += length
            }
            return ranges
        }
    }
}

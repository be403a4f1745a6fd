/// What an MDPACK1 file is (SPEC §16): a packed file or a patch, and which block lies where.
/// `encoded()`/`init(decoding:)` are the header and block index (docs/decisions/tensor-pack.md),
/// all integers big-endian:
///
///     "MDPACK1\0"  kind (u8: 0 pack, 1 patch)  width (u8: 1|2|4)  reserved (u16, 0)
///     block size (u32, 1 MiB)  output size (u64)  output SHA-256 (32)
///     base size (u64)  base SHA-256 (32)            — both zero in a pack
///     block count (u32 = ⌈output size / block size⌉)
///     count × { offset (u64)  coded length (u32)  SHA-256 of the decoded block (32) }
///
/// The blocks follow, back to back, each at its offset (from the start of the file). The index
/// comes first so a reader streams the file front to back, and knows where to resume by range.
public struct PackHeader: Equatable, Sendable {
    public enum Kind: UInt8, Sendable { case pack = 0, patch = 1 }

    public static let magic: [UInt8] = Array("MDPACK1".utf8) + [0]
    public static let blockSize = 1 << 20
    public static let fixedSize = 100
    public static let entrySize = 44
    /// The largest output a reader takes: its index (44 bytes per MiB, ~11 MiB here) is held
    /// while the blocks stream, and must stay well inside the decoder's memory bound.
    public static let maxOutputSize: Int64 = 256 << 30
    public static let widths = [1, 2, 4]

    public let kind: Kind
    public let width: Int
    public let outputSize: Int64
    public let outputSHA256: [UInt8]
    public let baseSize: Int64
    public let baseSHA256: [UInt8]
    /// Where block i starts; one more entry at the end: the size of the whole file.
    public let offsets: [Int64]
    /// The decoded blocks' SHA-256s, 32 bytes each, end to end (one array, not one per block).
    let digests: [UInt8]

    public var blockCount: Int { offsets.count - 1 }
    /// The header and index: where block 0 starts.
    public var encodedSize: Int { Self.fixedSize + blockCount * Self.entrySize }
    /// The size of the whole MDPACK1 file.
    public var fileSize: Int64 { offsets[offsets.count - 1] }

    public func codedLength(of block: Int) -> Int { Int(offsets[block + 1] - offsets[block]) }
    public func decodedLength(of block: Int) -> Int { Self.decodedLength(of: block, outputSize: outputSize) }
    public func digest(of block: Int) -> ArraySlice<UInt8> { digests[32 * block..<32 * block + 32] }

    static func blockCount(outputSize: Int64) -> Int { Int((outputSize + Int64(blockSize) - 1) / Int64(blockSize)) }

    static func decodedLength(of block: Int, outputSize: Int64) -> Int {
        Int(min(Int64(blockSize), outputSize - Int64(block) * Int64(blockSize)))
    }

    /// The largest coding of a block of `length` bytes: a plane coding never exceeds its planes
    /// (one stored plane at worst), so the method byte and 8·width plane lengths on top.
    static func maxCodedLength(decoded length: Int, width: Int) -> Int { 1 + 4 * 8 * width + length }

    /// A header from the encoder's figures; block offsets follow from the coded lengths.
    init(kind: Kind, width: Int, outputSize: Int64, outputSHA256: [UInt8], baseSize: Int64, baseSHA256: [UInt8],
         codedLengths: [Int], digests: [UInt8]) {
        precondition(codedLengths.count == Self.blockCount(outputSize: outputSize) && digests.count == 32 * codedLengths.count)
        self.kind = kind
        self.width = width
        self.outputSize = outputSize
        self.outputSHA256 = outputSHA256
        self.baseSize = baseSize
        self.baseSHA256 = baseSHA256
        var offsets = [Int64(Self.fixedSize + codedLengths.count * Self.entrySize)]
        offsets.reserveCapacity(codedLengths.count + 1)
        for length in codedLengths { offsets.append(offsets[offsets.count - 1] + Int64(length)) }
        self.offsets = offsets
        self.digests = digests
    }

    public func encoded() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(encodedSize)
        out += Self.magic
        out += [kind.rawValue, UInt8(width), 0, 0]
        Self.append(UInt64(Self.blockSize), bytes: 4, to: &out)
        Self.append(UInt64(outputSize), bytes: 8, to: &out)
        out += outputSHA256
        Self.append(UInt64(baseSize), bytes: 8, to: &out)
        out += baseSHA256
        Self.append(UInt64(blockCount), bytes: 4, to: &out)
        for i in 0..<blockCount {
            Self.append(UInt64(offsets[i]), bytes: 8, to: &out)
            Self.append(UInt64(codedLength(of: i)), bytes: 4, to: &out)
            out += digest(of: i)
        }
        return out
    }

    /// How many bytes the header and index take, from the first `fixedSize` bytes, before any
    /// of the index is read: a streaming reader knows how much to wait for (and a bogus count is
    /// refused here, never allocated).
    public static func encodedSize(fixed bytes: some RandomAccessCollection<UInt8>) throws(PackError) -> Int {
        let bytes = Array(bytes.prefix(fixedSize))
        guard bytes.count == fixedSize else { throw .truncated }
        guard bytes[0..<8].elementsEqual(magic) else { throw .badMagic }
        guard Kind(rawValue: bytes[8]) != nil else { throw .badHeader("unknown kind \(bytes[8])") }
        guard widths.contains(Int(bytes[9])) else { throw .badHeader("width \(bytes[9]) is not 1, 2 or 4") }
        guard bytes[10] == 0, bytes[11] == 0 else { throw .badHeader("reserved bytes are not zero") }
        let blockSizeField = read(bytes, at: 12, bytes: 4)
        guard blockSizeField == UInt64(blockSize) else { throw .badHeader("block size \(blockSizeField), expected \(blockSize)") }
        let size = read(bytes, at: 16, bytes: 8)
        guard size <= UInt64(maxOutputSize) else { throw .badHeader("output size \(size) is over the \(maxOutputSize)-byte limit") }
        let count = Int(read(bytes, at: 96, bytes: 4))
        guard count == blockCount(outputSize: Int64(size)) else {
            throw .badHeader("\(count) blocks for \(size) bytes, expected \(blockCount(outputSize: Int64(size)))")
        }
        return fixedSize + count * entrySize
    }

    /// Strict: the fixed header, then exactly the index it announces; every offset where the
    /// blocks before it end, every coded length within what the writer could have written.
    public init(decoding bytes: [UInt8]) throws(PackError) {
        let size = try Self.encodedSize(fixed: bytes)
        guard bytes.count >= size else { throw .truncated }
        guard bytes.count == size else { throw .badHeader("\(bytes.count - size) bytes after the index") }
        kind = Kind(rawValue: bytes[8])!
        width = Int(bytes[9])
        outputSize = Int64(Self.read(bytes, at: 16, bytes: 8))
        outputSHA256 = Array(bytes[24..<56])
        let base = Self.read(bytes, at: 56, bytes: 8)
        baseSHA256 = Array(bytes[64..<96])
        switch kind {
        case .pack:
            guard base == 0, baseSHA256.allSatisfy({ $0 == 0 }) else { throw .badHeader("a pack names a base") }
        case .patch:
            guard base <= UInt64(Self.maxOutputSize) else { throw .badHeader("base size \(base) is over the limit") }
        }
        baseSize = Int64(base)
        let count = Self.blockCount(outputSize: outputSize)
        var offsets: [Int64] = [Int64(size)]
        offsets.reserveCapacity(count + 1)
        var digests: [UInt8] = []
        digests.reserveCapacity(32 * count)
        var at = Self.fixedSize
        for i in 0..<count {
            let offset = Self.read(bytes, at: at, bytes: 8)
            guard offset == UInt64(offsets[i]) else { throw .badHeader("block \(i) at offset \(offset), expected \(offsets[i])") }
            let length = Int(Self.read(bytes, at: at + 8, bytes: 4))
            let decoded = Self.decodedLength(of: i, outputSize: outputSize)
            guard (1...Self.maxCodedLength(decoded: decoded, width: width)).contains(length) else {
                throw .badHeader("block \(i) has coded length \(length) for \(decoded) bytes")
            }
            offsets.append(offsets[i] + Int64(length))
            digests += bytes[at + 12..<at + Self.entrySize]
            at += Self.entrySize
        }
        self.offsets = offsets
        self.digests = digests
    }

    static func append(_ value: UInt64, bytes: Int, to out: inout [UInt8]) {
        for shift in stride(from: 8 * (bytes - 1), through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    static func read(_ bytes: some RandomAccessCollection<UInt8>, at offset: Int, bytes count: Int) -> UInt64 {
        var value: UInt64 = 0
        var i = bytes.index(bytes.startIndex, offsetBy: offset)
        for _ in 0..<count {
            value = value << 8 | UInt64(bytes[i])
            bytes.formIndex(after: &i)
        }
        return value
    }
}

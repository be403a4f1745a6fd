/// The chunk list of one file (SPEC §14): its size and, in order, every chunk's length and
/// SHA-256. The lengths tile the file. `encoded()`/`init(decoding:)` are the `.chunks` format:
///
///     "MDCHUNK1"  file size (u64 BE)  chunk count (u32 BE)  flags (u32 BE, 0)
///     count × { length (u32 BE)  SHA-256 (32 bytes) }
public struct ChunkList: Hashable, Sendable {
    public struct Chunk: Hashable, Sendable {
        public let length: Int
        public let sha256: ChunkDigest

        public init(length: Int, sha256: ChunkDigest) {
            self.length = length
            self.sha256 = sha256
        }
    }

    public static let magic = Array("MDCHUNK1".utf8)
    public static let headerSize = 24
    public static let entrySize = 36
    /// `models/<file>.chunks`: the list's name next to its file.
    public static let fileSuffix = ".chunks"

    public let fileSize: Int64
    public let chunks: [Chunk]

    /// Checks what the reader checks: every length in 1…max, every chunk but the last at least
    /// the minimum, the lengths summing to `fileSize`.
    public init(fileSize: Int64, chunks: [Chunk]) throws(ChunkListError) {
        guard fileSize >= 0 else { throw .sizeMismatch }
        var sum: Int64 = 0
        for (i, chunk) in chunks.enumerated() {
            guard (1...ContentDefinedChunker.maxSize).contains(chunk.length) else { throw .badLength(index: i, chunk.length) }
            guard i == chunks.count - 1 || chunk.length >= ContentDefinedChunker.minSize else { throw .badLength(index: i, chunk.length) }
            sum += Int64(chunk.length)
        }
        guard sum == fileSize else { throw .sizeMismatch }
        self.fileSize = fileSize
        self.chunks = chunks
    }

    /// Where each chunk starts in the file, in order (one more entry: the file size).
    public var offsets: [Int64] {
        var out: [Int64] = [0]
        out.reserveCapacity(chunks.count + 1)
        for c in chunks { out.append(out[out.count - 1] + Int64(c.length)) }
        return out
    }

    public func encoded() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(ChunkList.headerSize + chunks.count * ChunkList.entrySize)
        out += ChunkList.magic
        ChunkList.append(UInt64(fileSize), bytes: 8, to: &out)
        ChunkList.append(UInt64(chunks.count), bytes: 4, to: &out)
        ChunkList.append(0, bytes: 4, to: &out)
        for c in chunks {
            ChunkList.append(UInt64(c.length), bytes: 4, to: &out)
            out += c.sha256.bytes
        }
        return out
    }

    /// Strict: refuses anything `encoded()` would not have written. The count is checked
    /// against the bytes present before anything is allocated for it.
    public init(decoding bytes: [UInt8]) throws(ChunkListError) {
        guard bytes.count >= ChunkList.headerSize else { throw .truncated }
        guard bytes[0..<8].elementsEqual(ChunkList.magic) else { throw .badMagic }
        let size = ChunkList.read(bytes, at: 8, bytes: 8)
        let count = Int(ChunkList.read(bytes, at: 16, bytes: 4))
        let flags = ChunkList.read(bytes, at: 20, bytes: 4)
        guard flags == 0 else { throw .unknownFlags(UInt32(flags)) }
        guard size <= UInt64(Int64.max) else { throw .sizeMismatch }
        let expected = ChunkList.headerSize + count * ChunkList.entrySize
        guard bytes.count >= expected else { throw .truncated }
        guard bytes.count == expected else { throw .trailingBytes }
        var chunks: [Chunk] = []
        chunks.reserveCapacity(count)
        var at = ChunkList.headerSize
        for _ in 0..<count {
            let length = Int(ChunkList.read(bytes, at: at, bytes: 4))
            chunks.append(Chunk(length: length, sha256: ChunkDigest(bytes[at + 4..<at + ChunkList.entrySize])))
            at += ChunkList.entrySize
        }
        try self.init(fileSize: Int64(size), chunks: chunks)
    }

    private static func append(_ value: UInt64, bytes: Int, to out: inout [UInt8]) {
        for shift in stride(from: (bytes - 1) * 8, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    private static func read(_ bytes: [UInt8], at start: Int, bytes count: Int) -> UInt64 {
        var value: UInt64 = 0
        for byte in bytes[start..<start + count] { value = value << 8 | UInt64(byte) }
        return value
    }
}

/// Why a `.chunks` file was refused.
public enum ChunkListError: Error, Equatable, CustomStringConvertible {
    case truncated
    case badMagic
    case unknownFlags(UInt32)
    case trailingBytes
    case badLength(index: Int, Int)
    case sizeMismatch

    public var description: String {
        switch self {
        case .truncated: "the chunk list is truncated"
        case .badMagic: "not a chunk list (no MDCHUNK1 header)"
        case .unknownFlags(let flags): "the chunk list has unknown flags \(flags)"
        case .trailingBytes: "the chunk list has bytes after its last chunk"
        case .badLength(let index, let length): "chunk \(index) has length \(length), outside the chunker's bounds"
        case .sizeMismatch: "the chunk lengths do not sum to the file size"
        }
    }
}

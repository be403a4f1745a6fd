import CryptoPrimitives

/// Builds a file's chunk list from its bytes as they stream past (an upload being written, a
/// file being read), holding at most one append plus one maximal chunk: the file is never
/// whole in memory. Cuts with `ContentDefinedChunker`, then hashes each chunk.
public struct ChunkListBuilder: Sendable {
    private var pending: [UInt8] = []
    private var chunks: [ChunkList.Chunk] = []
    private var size: Int64 = 0

    public init() {}

    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        pending.append(contentsOf: bytes)
        size += Int64(bytes.count)
        // A chunk is cut only once `maxSize` bytes are known (or at the end): its cut may lie anywhere up to there.
        consume(keepingAtLeast: ContentDefinedChunker.maxSize)
    }

    public mutating func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { append($0) }
    }

    /// The list of everything appended.
    public mutating func finish() -> ChunkList {
        consume(keepingAtLeast: 1)
        precondition(pending.isEmpty)
        // The chunker's own output always satisfies the list's rules.
        return try! ChunkList(fileSize: size, chunks: chunks)
    }

    /// Cuts and hashes chunks while more than `keep - 1` bytes wait, then drops them at once
    /// (one move per append, not per chunk).
    private mutating func consume(keepingAtLeast keep: Int) {
        var start = 0
        pending.withUnsafeBytes { raw in
            while raw.count - start >= keep {
                let rest = UnsafeRawBufferPointer(rebasing: raw[start...])
                let length = ContentDefinedChunker.cut(rest)
                let chunk = UnsafeRawBufferPointer(rebasing: rest[0..<length])
                chunks.append(ChunkList.Chunk(length: length, sha256: ChunkDigest(SHA256.hash(data: chunk))))
                start += length
            }
        }
        pending.removeFirst(start)
    }

    /// The list of a whole stream read by `read` (which fills the buffer it is given and
    /// answers the byte count, 0 at the end), 1 MiB at a time.
    public static func build(reading read: (UnsafeMutableRawBufferPointer) throws -> Int) rethrows -> ChunkList {
        var builder = ChunkListBuilder()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let n = try read(buffer)
            if n == 0 { break }
            builder.append(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
        }
        return builder.finish()
    }
}

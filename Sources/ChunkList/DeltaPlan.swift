/// How to build a new file from the chunk lists of files already at hand (SPEC §14): every
/// chunk of `target` is either copied from a source file that has a chunk with the same
/// SHA-256, or fetched. Missing chunks next to each other are joined into one byte range of
/// at most `maxRequestBytes` (always whole chunks, so each still verifies on its own). Pure.
public struct DeltaPlan: Sendable, Equatable {
    /// Target chunk `chunk`, copied from source file `source` (an index into the sources) at `sourceOffset`.
    public struct Copy: Sendable, Equatable {
        public let chunk: Int
        public let targetOffset: Int64
        public let length: Int
        public let source: Int
        public let sourceOffset: Int64
    }

    /// One single-range GET: target bytes `offset..<offset+length`, the chunks `chunks` of the target.
    public struct Fetch: Sendable, Equatable {
        public let offset: Int64
        public let length: Int64
        public let chunks: Range<Int>
    }

    public static let defaultMaxRequestBytes: Int64 = 8 << 20

    public let copies: [Copy]
    public let fetches: [Fetch]

    public var bytesReused: Int64 { copies.reduce(0) { $0 + Int64($1.length) } }
    public var bytesToFetch: Int64 { fetches.reduce(0) { $0 + $1.length } }

    /// `done`: target chunks already in place (a resumed build), neither copied nor fetched.
    public init(target: ChunkList, sources: [ChunkList], done: Set<Int> = [], maxRequestBytes: Int64 = DeltaPlan.defaultMaxRequestBytes) {
        // First source with the digest wins: the order of `sources` is the caller's preference.
        var known: [ChunkDigest: (source: Int, offset: Int64, length: Int)] = [:]
        for (s, list) in sources.enumerated() {
            for (chunk, offset) in zip(list.chunks, list.offsets) where known[chunk.sha256] == nil {
                known[chunk.sha256] = (s, offset, chunk.length)
            }
        }
        var copies: [Copy] = []
        var fetches: [Fetch] = []
        for (i, (chunk, offset)) in zip(target.chunks, target.offsets).enumerated() where !done.contains(i) {
            if let hit = known[chunk.sha256], hit.length == chunk.length {
                copies.append(Copy(chunk: i, targetOffset: offset, length: chunk.length, source: hit.source, sourceOffset: hit.offset))
            } else if let last = fetches.last, last.chunks.upperBound == i, last.length + Int64(chunk.length) <= maxRequestBytes {
                fetches[fetches.count - 1] = Fetch(offset: last.offset, length: last.length + Int64(chunk.length), chunks: last.chunks.lowerBound..<i + 1)
            } else {
                fetches.append(Fetch(offset: offset, length: Int64(chunk.length), chunks: i..<i + 1))
            }
        }
        self.copies = copies
        self.fetches = fetches
    }
}

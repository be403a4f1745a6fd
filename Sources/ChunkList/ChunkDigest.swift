/// A chunk's SHA-256, held as four words so that a list of 65,536 chunks (a 4 GiB file) is one
/// flat array and digests hash cheaply as dictionary keys.
public struct ChunkDigest: Hashable, Sendable {
    let words: (UInt64, UInt64, UInt64, UInt64)

    /// `bytes` must be exactly 32 bytes (a SHA-256 digest or its bytes).
    public init<Bytes: Sequence<UInt8>>(_ bytes: Bytes) {
        var words: [UInt64] = [0, 0, 0, 0]
        var count = 0
        for byte in bytes {
            precondition(count < 32, "a SHA-256 is 32 bytes")
            words[count / 8] = words[count / 8] << 8 | UInt64(byte)
            count += 1
        }
        precondition(count == 32, "a SHA-256 is 32 bytes")
        self.words = (words[0], words[1], words[2], words[3])
    }

    public var bytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(32)
        for word in [words.0, words.1, words.2, words.3] {
            for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: word >> UInt64(shift))) }
        }
        return out
    }

    public static func == (a: ChunkDigest, b: ChunkDigest) -> Bool { a.words == b.words }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(words.0)
        hasher.combine(words.1)
    }
}

import CryptoPrimitives

/// 128-bit identity of a batch: the first 16 bytes of SHA-256(client_id + "\0" + batch_id) (SPEC §5).
public struct DedupKey: Hashable, Sendable {
    public let high: UInt64
    public let low: UInt64

    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// An absent client_id hashes as the empty string.
    public init(clientID: String?, batchID: String) {
        var hasher = SHA256()
        hasher.update(data: Array((clientID ?? "").utf8))
        hasher.update(data: [0])
        hasher.update(data: Array(batchID.utf8))
        var high: UInt64 = 0, low: UInt64 = 0
        for (i, byte) in hasher.finalize().prefix(16).enumerated() {
            if i < 8 { high = high << 8 | UInt64(byte) } else { low = low << 8 | UInt64(byte) }
        }
        self.init(high: high, low: low)
    }
}

#if canImport(Glibc)
import Glibc
#endif

/// `<segment>.idx`, written atomically when a segment is sealed: the batch keys of the segment
/// and its `received_at` range, so start-up rebuilds dedup without parsing events.
/// Layout (little-endian): "MEIDX1\n\0", count u64, min ms i64, max ms i64, count × (high u64, low u64).
struct SegmentIndexFile: Equatable {
    var keys: [DedupKey]
    var minMillis: Int64
    var maxMillis: Int64

    private static let magic: [UInt8] = Array("MEIDX1\n\0".utf8)

    func encoded() -> [UInt8] {
        var out = Self.magic
        out.reserveCapacity(32 + keys.count * 16)
        func put(_ v: UInt64) { withUnsafeBytes(of: v.littleEndian) { out.append(contentsOf: $0) } }
        put(UInt64(keys.count))
        put(UInt64(bitPattern: minMillis))
        put(UInt64(bitPattern: maxMillis))
        for k in keys { put(k.high); put(k.low) }
        return out
    }

    init(keys: [DedupKey], minMillis: Int64, maxMillis: Int64) {
        self.keys = keys
        self.minMillis = minMillis
        self.maxMillis = maxMillis
    }

    init?(decoding bytes: [UInt8]) {
        guard bytes.count >= 32, Array(bytes[0..<8]) == Self.magic else { return nil }
        func get(_ at: Int) -> UInt64 {
            var v: UInt64 = 0
            for i in (0..<8).reversed() { v = v << 8 | UInt64(bytes[at + i]) }
            return v
        }
        let count = Int(truncatingIfNeeded: get(8))
        guard count >= 0, bytes.count == 32 + count * 16 else { return nil }
        keys = (0..<count).map { DedupKey(high: get(32 + $0 * 16), low: get(40 + $0 * 16)) }
        minMillis = Int64(bitPattern: get(16))
        maxMillis = Int64(bitPattern: get(24))
    }

    static func read(_ path: String) -> SegmentIndexFile? {
        guard let bytes = readWholeFile(path) else { return nil }
        return SegmentIndexFile(decoding: bytes)
    }
}

/// Reads a small file whole (index files only; segments are streamed).
func readWholeFile(_ path: String) -> [UInt8]? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var out: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n < 0 { if errno == EINTR { continue }; return nil }
        if n == 0 { return out }
        out.append(contentsOf: chunk[0..<n])
    }
}

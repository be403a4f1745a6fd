/// Reads little-endian fields from a byte array; reading past the end throws instead of trapping.
struct LittleEndianReader {
    private let bytes: [UInt8]
    private(set) var offset: Int

    init(_ bytes: [UInt8], at offset: Int = 0) {
        self.bytes = bytes
        self.offset = offset
    }

    var remaining: Int { bytes.count - offset }

    mutating func u16() throws -> UInt16 { UInt16(truncatingIfNeeded: try unsigned(2)) }
    mutating func u32() throws -> UInt32 { UInt32(truncatingIfNeeded: try unsigned(4)) }
    mutating func u64() throws -> UInt64 { try unsigned(8) }

    mutating func take(_ count: Int) throws -> [UInt8] {
        guard count >= 0, count <= remaining else { throw ZipError.malformed("a record runs past its end") }
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }

    private mutating func unsigned(_ width: Int) throws -> UInt64 {
        guard width <= remaining else { throw ZipError.malformed("a record runs past its end") }
        var value: UInt64 = 0
        for i in (0..<width).reversed() { value = value << 8 | UInt64(bytes[offset + i]) }
        offset += width
        return value
    }
}

/// One entry of the central directory, checked (path, type, encryption, sizes) by
/// ``ZipReader``'s initializer.
public struct ZipEntry: Equatable, Sendable {
    /// The relative path, `/`-separated; directories end with `/`.
    public let name: String
    public let method: UInt16
    public let flags: UInt16
    public let crc32: UInt32
    public let compressedSize: Int64
    public let uncompressedSize: Int64
    public let localHeaderOffset: Int64
    public var isDirectory: Bool { name.hasSuffix("/") }

    static let stored: UInt16 = 0
    static let deflated: UInt16 = 8
}

/// Limits against zip bombs (SPEC §13.1): the declared unpacked total may be at most `ratio`
/// times the archive's size and at most `maxTotal` bytes; each entry's data must then inflate to
/// exactly its declared size.
public struct ZipLimits: Sendable {
    public var ratio: Int64
    public var maxTotal: Int64
    /// A central directory larger than this is refused before it is read into memory.
    public var maxCentralDirectory: Int64

    public init(ratio: Int64 = 20, maxTotal: Int64 = 64 << 30, maxCentralDirectory: Int64 = 64 << 20) {
        self.ratio = ratio
        self.maxTotal = maxTotal
        self.maxCentralDirectory = maxCentralDirectory
    }
}

/// Random access to the bytes of an archive.
public protocol ZipSource {
    var size: Int64 { get }
    /// Exactly `count` bytes at `offset` (the reader never asks past `size`).
    func read(at offset: Int64, count: Int) throws -> [UInt8]
}

/// An archive held in memory (tests, fuzzing).
public struct BytesZipSource: ZipSource {
    public let bytes: [UInt8]
    public init(_ bytes: [UInt8]) { self.bytes = bytes }
    public var size: Int64 { Int64(bytes.count) }
    public func read(at offset: Int64, count: Int) throws -> [UInt8] {
        Array(bytes[Int(offset)..<Int(offset) + count])
    }
}

import Foundation

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

/// An archive on disk, read through Foundation's `FileHandle` (no Glibc: this target builds on
/// Apple platforms too).
public final class FileZipSource: ZipSource {
    private let handle: FileHandle
    public let size: Int64

    public init(_ url: URL) throws {
        handle = try FileHandle(forReadingFrom: url)
        size = Int64(try handle.seekToEnd())
    }

    deinit { try? handle.close() }  // read-only: nothing to lose, and deinit cannot throw

    public func read(at offset: Int64, count: Int) throws -> [UInt8] {
        try handle.seek(toOffset: UInt64(offset))
        let data = try handle.read(upToCount: count) ?? Data()
        guard data.count == count else { throw ZipError.malformed("file shorter than expected at offset \(offset)") }
        return [UInt8](data)
    }
}

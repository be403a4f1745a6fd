import BinaryText
import CryptoPrimitives
import DurableFiles
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one lowercase-hex SHA-256 of the package: of bytes in memory (signature bases, JSON
/// files, S3 payloads, snapshots), and of a file or a range of one through `HashingFileReader`,
/// so a model file hashes the same in modeld, modelctl, the bucket uploader and the client.
public enum SHA256Hex {
    public static func of(_ bytes: [UInt8]) -> String { Hex.encode(SHA256.hash(data: bytes)) }

    /// The SHA-256 of `length` bytes of the open file `fd` from `offset` (to its end by
    /// default), read 1 MiB at a time: a model is never whole in memory.
    public static func of(fd: Int32, path: String, offset: Int64 = 0, length: Int64 = .max) throws(IOFailure) -> String {
        var reader = HashingFileReader(fd: fd, path: path, offset: offset, length: length)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        while try reader.read(into: buffer) > 0 {}
        return reader.hex()
    }

    /// The SHA-256 of a byte range of the file at `path` (the whole file by default).
    public static func of(path: String, offset: Int64 = 0, length: Int64 = .max) throws(IOFailure) -> String {
        let fd = try DurableFile.open(path, O_RDONLY)
        defer { close(fd) }
        return try of(fd: fd, path: path, offset: offset, length: length)
    }
}

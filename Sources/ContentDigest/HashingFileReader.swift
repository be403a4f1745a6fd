import BinaryText
import CryptoPrimitives
import DurableFiles
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a file, or a range of one, front to back and hashes every byte it hands out: for
/// readers that need the bytes too (the chunker, an upload body), the digest is ready after the
/// last read without a second pass. Positional reads (`pread`), so the fd's offset is untouched.
public struct HashingFileReader {
    public let fd: Int32
    public let path: String
    private var offset: Int64
    private let end: Int64
    private var hasher = SHA256()

    public init(fd: Int32, path: String, offset: Int64 = 0, length: Int64 = .max) {
        self.fd = fd
        self.path = path
        self.offset = offset
        end = length > .max - offset ? .max : offset + length
    }

    /// Fills at most `buffer.count` bytes; 0 at the end of the range or of the file.
    public mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(IOFailure) -> Int {
        let wanted = Int(min(Int64(buffer.count), end - offset))
        guard wanted > 0 else { return 0 }
        while true {
            let n = pread(fd, buffer.baseAddress, wanted, off_t(offset))
            if n >= 0 {
                hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
                offset += Int64(n)
                return n
            }
            if errno != EINTR { throw IOFailure(path: path, operation: "read", code: errno) }
        }
    }

    /// Lowercase hex SHA-256 of everything read so far.
    public func hex() -> String { Hex.encode(hasher.finalize()) }
}

import BinaryText
import ContentDigest
import DurableFiles
import TensorPack
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A patch's base on disk, read by offset: the decoder and the encoder take the same block of
/// it as of the new file (modelctl, the server's derivation and the client's patch download).
public final class FileBase: PatchBase {
    public let path: String
    public let size: Int64
    private let fd: Int32

    public init(path: String) throws(PackFileError) {
        self.path = path
        fd = try PackFiles.open(path)
        do throws(PackFileError) { size = try PackFiles.fileSize(fd, path) } catch {
            close(fd)
            throw error
        }
    }

    deinit { close(fd) }

    public func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws(PackError) {
        do throws(PackFileError) { try PackFiles.readFully(fd, path, at: offset, into: buffer) } catch {
            throw .baseUnreadable(error.description)
        }
    }

    /// Reads the base's bytes at `offset` (at most `length`, fewer past its end) into `buffer`;
    /// answers how many.
    func read(at offset: Int64, upTo length: Int, into buffer: inout [UInt8]) throws(PackFileError) -> Int {
        let count = Int(max(0, min(Int64(length), size - offset)))
        try PackFiles.withBytes(&buffer) { raw throws(PackFileError) in
            try PackFiles.readFully(fd, path, at: offset, into: UnsafeMutableRawBufferPointer(rebasing: raw[0..<count]))
        }
        return count
    }

    /// XORs the base's bytes at `offset` into `bytes` (a sample of the new file).
    func xor(at offset: Int64, into bytes: inout [UInt8], scratch: inout [UInt8]) throws(PackFileError) {
        let count = try read(at: offset, upTo: bytes.count, into: &scratch)
        scratch.withUnsafeBytes { base in bytes.withUnsafeMutableBytes { ByteXOR.apply(UnsafeRawBufferPointer(rebasing: base[0..<count]), to: $0) } }
    }

    func sha256() throws(PackFileError) -> [UInt8] {
        do throws(IOFailure) { return Hex.decode(try SHA256Hex.of(fd: fd, path: path))! } catch { throw .io(error) }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ZipArchive

/// What a published zip unpacks to on a device (SPEC §3.2 `disk_bytes`): the sum of its
/// entries' uncompressed sizes, read from the central directory only (no data is inflated).
enum ZipContents {
    /// nil for a file that is not a zip the client would accept (ZipReader's checks and bomb
    /// limits, the same the client's unpacker applies): publishing it still succeeds, and
    /// `disk_bytes` keeps the estimate (docs/decisions/adapters.md).
    static func unpackedSize(ofFileAt path: String) -> Int64? {
        guard let source = DescriptorZipSource(path: path) else { return nil }
        guard let reader = try? ZipReader(source) else { return nil }
        return reader.entries.reduce(0) { $0 + $1.uncompressedSize }
    }
}

/// A file read by `pread` on its own descriptor: FileZipSource needs full Foundation, which the
/// server does not link (scripts/checks/no-full-foundation.sh).
final class DescriptorZipSource: ZipSource {
    private let fd: Int32
    let size: Int64

    init?(path: String) {
        fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            close(fd)
            return nil
        }
        size = Int64(st.st_size)
    }

    deinit { close(fd) }   // read-only: nothing to lose

    func read(at offset: Int64, count: Int) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, count - done, off_t(offset) + off_t(done)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw ZipError.malformed("file shorter than expected at offset \(offset)") }
            done += n
        }
        return bytes
    }
}

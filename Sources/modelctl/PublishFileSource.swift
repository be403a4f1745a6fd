import ContentDigest
import Foundation

/// The model file read once, front to back, in the chunks libcurl asks for. Each chunk is hashed
/// as it goes out, so the SHA-256 is ready for the chunked trailer after the last byte.
final class PublishFileSource: UploadSource {
    let path: String
    /// Size when opened, for the progress bar; the body is whatever the reads return.
    let size: Int64
    private let fd: Int32
    private var reader: HashingFileReader
    private var digestHex: String?

    init(path: String) throws(CLIFailure) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw CLIFailure("cannot read \(path): \(String(cString: strerror(errno)))") }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw CLIFailure("cannot publish \(path): not a regular file")
        }
        self.path = path
        self.fd = fd
        reader = HashingFileReader(fd: fd, path: path)
        size = Int64(info.st_size)
    }

    deinit { close(fd) }

    let trailerNames = ["X-Model-SHA256"]

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(CLIFailure) -> Int {
        let count: Int
        do { count = try reader.read(into: buffer) } catch { throw CLIFailure("cannot \(error)") }
        if count == 0, digestHex == nil { digestHex = reader.hex() }
        return count
    }

    /// Lowercase hex SHA-256 of everything read, once a read has returned 0 (end of file).
    var sha256Hex: String? { digestHex }

    func trailerFields() -> [String] {
        digestHex.map { ["X-Model-SHA256: \($0)"] } ?? []
    }
}

import CurlTransport
import Glibc
import ObjectStorage

/// `length` bytes of a file from `offset`, read with pread in the chunks libcurl asks for, so a
/// part of a multi-gigabyte file never sits in memory. A file shorter than promised fails the
/// transfer instead of sending a short body.
final class FileRangeSource: CurlUploadSource {
    private let path: String
    private let fd: Int32
    private var offset: Int64
    private var remaining: Int64

    init(path: String, offset: Int64, length: Int64) throws(S3Error) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw S3Error.local("cannot read \(path): \(String(cString: strerror(errno)))") }
        self.path = path
        self.fd = fd
        self.offset = offset
        remaining = length
    }

    deinit { close(fd) }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard remaining > 0 else { return 0 }
        let want = Int(min(Int64(buffer.count), remaining))
        var count: Int
        repeat { count = pread(fd, buffer.baseAddress, want, off_t(offset)) } while count < 0 && errno == EINTR
        guard count > 0 else {
            throw S3Error.local(count == 0 ? "\(path) is shorter than expected (it changed during the upload)"
                                           : "cannot read \(path): \(String(cString: strerror(errno)))")
        }
        offset += Int64(count)
        remaining -= Int64(count)
        return count
    }
}

import Glibc
import ObjectStorage

extension Credentials {
    /// Reads `profile` from an AWS CLI credentials file. A file any group or other user may
    /// read or write is refused (usage error): a secret there is as good as leaked.
    public static func load(file path: String, profile: String) throws(S3Error) -> Credentials {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw S3Error.usage("cannot read credentials file \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            throw S3Error.usage("credentials file \(path) is not a regular file")
        }
        guard info.st_mode & 0o077 == 0 else {
            throw S3Error.usage("credentials file \(path) is accessible by group or others (mode \(String(info.st_mode & 0o777, radix: 8))); run chmod 600 \(path)")
        }
        guard info.st_size <= 1 << 20 else { throw S3Error.usage("credentials file \(path) is larger than 1 MiB") }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var filled = 0
        while filled < bytes.count {
            let count = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + filled, $0.count - filled) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw S3Error.usage("cannot read credentials file \(path)") }
            filled += count
        }
        return try fromINI(String(decoding: bytes, as: UTF8.self), profile: profile, source: path)
    }
}

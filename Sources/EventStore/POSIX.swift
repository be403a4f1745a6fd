import DurableFiles
#if canImport(Glibc)
import Glibc
#endif

/// The two calls on segment files whose failures the store must survive (not ModelCatalog's
/// `FileIO`), behind a seam so tests can inject ENOSPC/EIO (they set `errno` and return -1, as
/// the kernel would).
struct SegmentSyscalls: Sendable {
    var write: @Sendable (_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int
    var fdatasync: @Sendable (_ fd: Int32) -> Int32

    static let system = SegmentSyscalls(
        write: { fd, bytes in Glibc.write(fd, bytes.baseAddress, bytes.count) },
        fdatasync: { fd in Glibc.fdatasync(fd) }
    )
}

enum POSIX {
    static func nowMillis() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
    }

    static func monotonicSeconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// Writes everything (retrying short writes and EINTR) or returns the errno.
    static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, io: SegmentSyscalls) -> Int32? {
        do { try DurableFile.writeAll(fd, bytes, path: "", using: io.write) } catch { return error.code }
        return nil
    }
}

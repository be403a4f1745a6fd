#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What identifies one version of a file for the watchers that poll `stat` (catalog, tokens):
/// an atomic replace always changes the inode, an in-place edit the size or the nanosecond mtime.
public struct FileStamp: Sendable, Equatable {
    var exists = false
    var device: UInt64 = 0
    var inode: UInt64 = 0
    var size: Int64 = 0
    var mtimeSeconds = 0
    var mtimeNanoseconds = 0

    /// A file that does not exist (or cannot be stat'ed).
    public init() {}

    public init(of path: String) {
        var st = stat()
        guard stat(path, &st) == 0 else { return }
        exists = true
        device = UInt64(st.st_dev)
        inode = UInt64(st.st_ino)
        size = Int64(st.st_size)
        #if canImport(Darwin)
        mtimeSeconds = Int(st.st_mtimespec.tv_sec)
        mtimeNanoseconds = Int(st.st_mtimespec.tv_nsec)
        #else
        mtimeSeconds = Int(st.st_mtim.tv_sec)
        mtimeNanoseconds = Int(st.st_mtim.tv_nsec)
        #endif
    }
}

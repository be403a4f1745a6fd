#if canImport(Glibc)
import Glibc
#endif
import CLinuxShims

/// The exclusive publish lock on `models/.lock` (SPEC §9). An open-file-description lock
/// (`F_OFD_SETLKW`): it conflicts with classic fcntl locks held by other processes, like the
/// SPEC's fcntl lock, but belongs to the open file rather than the process, so two publishers
/// in one process (threads, tests) exclude each other too. Closing the fd releases it, so a
/// crashed publisher never leaves it held.
enum PublishLock {
    static func withLock<T>(path: String, _ body: () throws(CatalogError) -> T) throws(CatalogError) -> T {
        let fd = try FileIO.open(path, O_RDWR | O_CREAT, 0o644)
        defer { close(fd) }
        while modeld_ofd_lock(fd, 1) != 0 {
            if errno != EINTR { throw FileIO.error("lock", path) }
        }
        defer { _ = modeld_ofd_unlock(fd) }
        return try body()
    }
}

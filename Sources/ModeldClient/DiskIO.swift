import DurableFiles
import Foundation
#if os(Linux)
import CLinuxShims
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The few POSIX file operations the cache needs to survive a crash at any instant (SPEC §2's
/// rule: temp file, fsync, rename, fsync the directory).
enum DiskIO {
    /// Replaces `url` with `data` atomically and durably.
    static func atomicWrite(_ data: Data, to url: URL) throws {
        try mapped { () throws(IOFailure) in try DurableFile.replace(url.path, with: [UInt8](data)) }
    }

    /// Renames `from` over `to` and makes the change durable.
    static func moveDurably(_ from: URL, to: URL) throws {
        try mapped { () throws(IOFailure) in try DurableFile.rename(from.path, to: to.path) }
    }

    static func syncFile(_ fd: Int32, path: String) throws {
        try mapped { () throws(IOFailure) in try DurableFile.sync(fd, path: path) }
    }

    /// Syncs a file's data and what reading it back needs (its size), not its times: for
    /// checkpoints. On Darwin a plain `fsync`, not `F_FULLFSYNC` (SPEC §13.2: that only at
    /// install): a checkpoint the drive cache loses to a power cut is caught by the SHA-256 at
    /// the end, which restarts the download.
    static func syncData(_ fd: Int32, path: String) throws {
        #if canImport(Glibc)
        guard fdatasync(fd) == 0 else { throw ModeldClientError.io("fdatasync \(path): \(errorText())") }
        #else
        guard fsync(fd) == 0 else { throw ModeldClientError.io("fsync \(path): \(errorText())") }
        #endif
    }

    /// Starts writing a file range to the disk without waiting for it (Linux), so the disk works
    /// while more data arrives instead of only inside the next fsync. Best effort: a write error
    /// surfaces at that fsync. Elsewhere the fsync does it all.
    static func startWriteback(_ fd: Int32, offset: Int64, length: Int64) {
        #if os(Linux)
        _ = modeld_start_writeback(fd, offset, length)
        #endif
    }

    static func fsyncDirectory(_ url: URL) throws {
        try mapped { () throws(IOFailure) in try DurableFile.syncDirectory(url.path) }
    }

    static func writeAll(_ fd: Int32, _ data: Data, path: String) throws {
        try mapped { () throws(IOFailure) in try DurableFile.writeAll(fd, [UInt8](data), path: path) }
    }

    static func writeAll(_ fd: Int32, _ raw: UnsafeRawBufferPointer, path: String) throws {
        try mapped { () throws(IOFailure) in try DurableFile.writeAll(fd, raw, path: path) }
    }

    /// Appends one line (without its newline) and makes it durable before returning
    /// (DurableFile.appendLine: a torn last line is cut off first).
    /// Opens `url` for appends synced in groups, its torn tail cut (the caller closes it).
    static func openForAppending(_ url: URL) throws -> Int32 {
        try mapped { () throws(IOFailure) in try DurableFile.openForAppending(url.path) }
    }

    /// Bytes an unprivileged process may still write on the file system holding `url`.
    static func availableBytes(at url: URL) throws -> Int64 {
        #if os(iOS) || os(macOS) || os(visionOS)
        // What the system would free for a download the user asked for (purgeable caches
        // included). tvOS and watchOS lack the key: statvfs there.
        if let important = try? url.resourceValues(forKeys: [.volumeAvailableCapacityForImportantUsageKey])
            .volumeAvailableCapacityForImportantUsage {
            return important
        }
        #endif
        var info = statvfs()
        guard statvfs(url.path, &info) == 0 else { throw ModeldClientError.io("statvfs \(url.path): \(errorText())") }
        return Int64(info.f_bavail) * Int64(info.f_frsize)
    }

    /// Takes an exclusive advisory lock on `url` for the life of the process (the returned fd);
    /// nil when another process holds it.
    static func lockExclusively(_ url: URL) throws -> Int32? {
        let fd = open(url.path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw ModeldClientError.io("open \(url.path): \(errorText())") }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            close(fd)
            return nil
        }
        return fd
    }

    static func closeFile(_ fd: Int32) { _ = close(fd) }

    static func errorText() -> String { String(cString: strerror(errno)) }

    /// DurableFiles' failures in the client's error vocabulary.
    private static func mapped<T>(_ body: () throws(IOFailure) -> T) throws(ModeldClientError) -> T {
        do { return try body() } catch { throw ModeldClientError.io(error.description) }
    }
}

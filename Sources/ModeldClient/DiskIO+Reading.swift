import DurableFiles
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension DiskIO {
    /// The whole file, or nil when it does not exist (ENOENT). Every other failure — EACCES, EIO,
    /// a directory in its place — throws: the caller must not mistake an unreadable file for a
    /// missing one and write a fresh one over it (SPEC §13.1).
    static func readIfExists(_ url: URL) throws -> Data? {
        do { return try DurableFile.read(url.path).map { Data($0) } } catch {
            throw ModeldClientError.io("cannot read \(url.lastPathComponent): \(error.description)")
        }
    }

    /// Whether `url` exists; an error other than ENOENT (EACCES on a parent) throws.
    static func exists(_ url: URL) throws -> Bool {
        var info = stat()
        if lstat(url.path, &info) == 0 { return true }
        if errno == ENOENT { return false }
        throw ModeldClientError.io("cannot stat \(url.path): \(errorText())")
    }

    /// Runs `body` holding an exclusive lock on `url`, waiting for it: for short critical
    /// sections shared by every channel (the cache layout's migration, the install identity).
    static func withLock<T>(_ url: URL, _ body: () throws -> T) throws -> T {
        let fd = open(url.path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw ModeldClientError.io("open \(url.path): \(errorText())") }
        defer { close(fd) }  // closing releases the lock
        while flock(fd, LOCK_EX) != 0 {
            guard errno == EINTR else { throw ModeldClientError.io("lock \(url.path): \(errorText())") }
        }
        return try body()
    }
}

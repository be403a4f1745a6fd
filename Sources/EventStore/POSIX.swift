#if canImport(Glibc)
import Glibc
#endif

/// The two calls whose failures the store must survive, behind a seam so tests can inject
/// ENOSPC/EIO (they set `errno` and return -1, as the kernel would).
struct FileIO: Sendable {
    var write: @Sendable (_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int
    var fdatasync: @Sendable (_ fd: Int32) -> Int32

    static let system = FileIO(
        write: { fd, bytes in Glibc.write(fd, bytes.baseAddress, bytes.count) },
        fdatasync: { fd in Glibc.fdatasync(fd) }
    )
}

/// An errno with the path it concerns, for messages an operator can act on.
struct IOFailure: Error, CustomStringConvertible {
    let path: String
    let operation: String
    let code: Int32
    var description: String { "\(operation) \(path): \(String(cString: strerror(code)))" }
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

    /// Creates `path` and missing parents; true when the last component was created now.
    @discardableResult
    static func makeDirectories(_ path: String) throws(IOFailure) -> Bool {
        if mkdir(path, 0o755) == 0 { return true }
        let e = errno
        if e == EEXIST { return false }
        guard e == ENOENT, let slash = path.lastIndex(of: "/"), slash != path.startIndex else {
            throw IOFailure(path: path, operation: "mkdir", code: e)
        }
        try makeDirectories(String(path[..<slash]))
        guard mkdir(path, 0o755) == 0 || errno == EEXIST else { throw IOFailure(path: path, operation: "mkdir", code: errno) }
        return true
    }

    static func fsyncDirectory(_ path: String) throws(IOFailure) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw IOFailure(path: path, operation: "open", code: errno) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw IOFailure(path: path, operation: "fsync", code: errno) }
    }

    /// Entry names of a directory (without `.` and `..`), nil when it cannot be opened.
    static func listDirectory(_ path: String) -> [String]? {
        guard let dir = opendir(path) else { return nil }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    static func fileExists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    /// Writes everything (retrying short writes and EINTR) or returns the errno.
    static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, io: FileIO) -> Int32? {
        var done = 0
        while done < bytes.count {
            let n = io.write(fd, UnsafeRawBufferPointer(rebasing: bytes[done...]))
            if n < 0 {
                if errno == EINTR { continue }
                return errno
            }
            done += n
        }
        return nil
    }

    /// Atomic replace (SPEC §2): temp file in the same directory, fsync, rename, fsync the directory.
    static func writeAtomically(_ bytes: [UInt8], to path: String, directory: String) throws(IOFailure) {
        let temp = path + ".tmp"
        let fd = open(temp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw IOFailure(path: temp, operation: "open", code: errno) }
        let writeError = bytes.withUnsafeBytes { writeAll(fd, $0, io: .system) }
        let syncError: Int32? = writeError == nil && fsync(fd) != 0 ? errno : nil
        close(fd)
        if let e = writeError ?? syncError {
            unlink(temp)
            throw IOFailure(path: temp, operation: "write", code: e)
        }
        guard rename(temp, path) == 0 else {
            let e = errno
            unlink(temp)
            throw IOFailure(path: path, operation: "rename", code: e)
        }
        try fsyncDirectory(directory)
    }
}

import BinaryText
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The file operations every writer of durable state shares (catalog, event store, token file,
/// mirror journal, client cache): EINTR-safe, each result checked, and SPEC §2's atomic
/// replace — temp file in the same directory, fsync, rename, fsync the directory — so a crash
/// at any instant leaves the old file or the new one, never a mix.
public enum DurableFile {
    public static func open(_ path: String, _ flags: Int32, mode: mode_t = 0o644) throws(IOFailure) -> Int32 {
        while true {
            let fd = systemOpen(path, flags | O_CLOEXEC, mode)
            if fd >= 0 { return fd }
            if errno != EINTR { throw IOFailure(path: path, operation: "open", code: errno) }
        }
    }

    /// The write(2) a caller may replace to inject ENOSPC or EIO in tests.
    public typealias Write = (_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int

    /// Writes everything, retrying short writes and EINTR. A write of 0 bytes counts as a full disk.
    public static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String,
                                using write: Write? = nil) throws(IOFailure) {
        let write = write ?? { fd, bytes in systemWrite(fd, bytes.baseAddress, bytes.count) }
        var offset = 0
        while offset < bytes.count {
            let n = write(fd, UnsafeRawBufferPointer(rebasing: bytes[offset...]))
            if n < 0 {
                if errno == EINTR { continue }
                throw IOFailure(path: path, operation: "write", code: errno)
            }
            if n == 0 { throw IOFailure(path: path, operation: "write", code: ENOSPC) }
            offset += n
        }
    }

    public static func writeAll(_ fd: Int32, _ bytes: [UInt8], path: String) throws(IOFailure) {
        // withUnsafeBytes only rethrows untyped errors: carry the typed one out by hand.
        let failure: IOFailure? = bytes.withUnsafeBytes { raw in
            do throws(IOFailure) { try writeAll(fd, raw, path: path); return nil } catch { return error }
        }
        if let failure { throw failure }
    }

    public static func sync(_ fd: Int32, path: String) throws(IOFailure) {
        #if canImport(Darwin)
        // Darwin's fsync leaves the data in the drive's cache; F_FULLFSYNC flushes it (SPEC
        // §13.1). Some file systems refuse it: plain fsync then.
        if fcntl(fd, F_FULLFSYNC) == 0 { return }
        #endif
        while systemFsync(fd) != 0 {
            if errno != EINTR { throw IOFailure(path: path, operation: "fsync", code: errno) }
        }
    }

    /// Makes a create, rename or unlink in `directory` durable.
    public static func syncDirectory(_ directory: String) throws(IOFailure) {
        let fd = try open(directory, O_RDONLY | O_DIRECTORY)
        defer { close(fd) }
        try sync(fd, path: directory)
    }

    /// `mkdir -p`: creates `path` and missing parents; true when the last component was created
    /// now (its parent then needs a `syncDirectory` for the entry to be durable).
    @discardableResult
    public static func makeDirectories(_ path: String, mode: mode_t = 0o755) throws(IOFailure) -> Bool {
        if mkdir(path, mode) == 0 { return true }
        let e = errno
        if e == EEXIST { return false }
        guard e == ENOENT, let slash = path.lastIndex(of: "/"), slash != path.startIndex else {
            throw IOFailure(path: path, operation: "mkdir", code: e)
        }
        try makeDirectories(String(path[..<slash]), mode: mode)
        guard mkdir(path, mode) == 0 || errno == EEXIST else { throw IOFailure(path: path, operation: "mkdir", code: errno) }
        return true
    }

    /// Renames `from` over `to` and makes the change durable (fsync of `to`'s directory).
    public static func rename(_ from: String, to: String) throws(IOFailure) {
        guard systemRename(from, to) == 0 else { throw IOFailure(path: "\(from) to \(to)", operation: "rename", code: errno) }
        try syncDirectory(directory(of: to))
    }

    /// Replaces `path` with `bytes` atomically and durably (SPEC §2). The temp file is a dot
    /// file named after the target with a unique suffix, so nothing that lists the directory by
    /// suffix takes a leftover of a crash for data, and concurrent writers never share one.
    public static func replace(_ path: String, with bytes: [UInt8], mode: mode_t = 0o644) throws(IOFailure) {
        let directory = directory(of: path)
        let name = path.lastIndex(of: "/").map { String(path[path.index(after: $0)...]) } ?? path
        let temp = "\(directory)/" + tempName(for: name)
        let fd = try open(temp, O_WRONLY | O_CREAT | O_EXCL, mode: mode)
        do throws(IOFailure) {
            try writeAll(fd, bytes, path: temp)
            try sync(fd, path: temp)
        } catch {
            close(fd)
            unlink(temp)
            throw error
        }
        close(fd)
        guard systemRename(temp, path) == 0 else {
            let failure = IOFailure(path: "\(temp) to \(path)", operation: "rename", code: errno)
            unlink(temp)
            throw failure
        }
        try syncDirectory(directory)
    }

    /// The whole file, or nil when it does not exist (ENOENT, or a parent that is not a
    /// directory). Every other failure is an error: unreadable is not the same as absent.
    public static func read(_ path: String) throws(IOFailure) -> [UInt8]? {
        let fd: Int32
        do { fd = try open(path, O_RDONLY) } catch {
            if error.code == ENOENT || error.code == ENOTDIR { return nil }
            throw error
        }
        defer { close(fd) }
        var out: [UInt8] = []
        // One allocation of the file's size (a 5 MB catalog grew by doubling: a tenth of a reload).
        var info = stat()
        if fstat(fd, &info) == 0, info.st_size > 0 { out.reserveCapacity(Int(info.st_size)) }
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = chunk.withUnsafeMutableBytes { systemRead(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw IOFailure(path: path, operation: "read", code: errno)
            }
            if n == 0 { return out }
            out += chunk[0..<n]
        }
    }

    /// Entry names of a directory (without `.` and `..`), nil when it cannot be opened.
    public static func entries(of directory: String) -> [String]? {
        guard let dir = opendir(directory) else { return nil }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    public static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    /// The directory part of `path` ("." for a bare name, "/" for a file in the root).
    public static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}

// The libc calls under names the methods above do not shadow.
private func systemOpen(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 { open(path, flags, mode) }
private func systemWrite(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int { write(fd, buffer, count) }
private func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int { read(fd, buffer, count) }
private func systemFsync(_ fd: Int32) -> Int32 { fsync(fd) }
private func systemRename(_ from: String, _ to: String) -> Int32 { rename(from, to) }

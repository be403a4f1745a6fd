#if canImport(Glibc)
import Glibc
#endif

/// Thin EINTR-safe wrappers over the syscalls the catalog's data path needs. Every failure is
/// a `CatalogError`; ENOSPC/EDQUOT become `insufficient_storage` (507) so callers can tell a
/// full disk from a broken one.
public enum FileIO {
    static func error(_ op: String, _ path: String, _ code: Int32 = errno) -> CatalogError {
        let text = String(cString: strerror(code))
        if code == ENOSPC || code == EDQUOT {
            return CatalogError(.insufficientStorage, "\(op) \(path): \(text)")
        }
        return CatalogError(.io, "\(op) \(path): \(text)")
    }

    public static func open(_ path: String, _ flags: Int32, _ mode: mode_t = 0o644) throws(CatalogError) -> Int32 {
        while true {
            let fd = Glibc.open(path, flags | O_CLOEXEC, mode)
            if fd >= 0 { return fd }
            if errno != EINTR { throw error("open", path) }
        }
    }

    static func writeAll(_ fd: Int32, _ buffer: UnsafeRawBufferPointer, path: String) throws(CatalogError) {
        var offset = 0
        while offset < buffer.count {
            let n = Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                throw error("write", path)
            }
            if n == 0 { throw error("write", path, ENOSPC) }
            offset += n
        }
    }

    public static func writeAll(_ fd: Int32, _ bytes: [UInt8], path: String) throws(CatalogError) {
        // Array.withUnsafeBytes only rethrows untyped errors: carry the typed one out by hand.
        let failure: CatalogError? = bytes.withUnsafeBytes { raw in
            do throws(CatalogError) { try writeAll(fd, raw, path: path); return nil } catch { return error }
        }
        if let failure { throw failure }
    }

    public static func fsync(_ fd: Int32, path: String) throws(CatalogError) {
        while Glibc.fsync(fd) != 0 {
            if errno != EINTR { throw error("fsync", path) }
        }
    }

    /// Makes a rename or unlink in `directory` durable.
    static func fsyncDirectory(_ directory: String) throws(CatalogError) {
        let fd = try open(directory, O_RDONLY | O_DIRECTORY)
        defer { close(fd) }
        try fsync(fd, path: directory)
    }

    /// The whole file, or nil when it does not exist.
    public static func read(_ path: String) throws(CatalogError) -> [UInt8]? {
        var fd: Int32
        repeat { fd = Glibc.open(path, O_RDONLY | O_CLOEXEC) } while fd < 0 && errno == EINTR
        if fd < 0 {
            if errno == ENOENT || errno == ENOTDIR { return nil }
            throw error("open", path)
        }
        defer { close(fd) }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw error("read", path)
            }
            if n == 0 { return out }
            out += chunk[0..<n]
        }
    }

    static func rename(_ from: String, _ to: String) throws(CatalogError) {
        guard Glibc.rename(from, to) == 0 else { throw error("rename \(from) to", to) }
    }

    public static func makeDirectory(_ path: String) throws(CatalogError) {
        if mkdir(path, 0o755) != 0 && errno != EEXIST { throw error("mkdir", path) }
    }

    static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    public static func entries(of directory: String) -> [String] {
        guard let dir = opendir(directory) else { return [] }
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

    /// `bytes` random bytes from the system's CSPRNG (getrandom), as lowercase hex.
    public static func randomHex(bytes: Int) -> String {
        var g = SystemRandomNumberGenerator()
        let hex = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for _ in 0..<bytes {
            let b = UInt8.random(in: 0...255, using: &g)
            out.append(hex[Int(b >> 4)])
            out.append(hex[Int(b & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends one JSON line and fsyncs it before returning (decision and audit logs): a line the
    /// caller was told is written survives a crash.
    public static func appendLine(_ line: [UInt8], to path: String) throws(CatalogError) {
        let fd = try open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC)
        defer { close(fd) }
        try writeAll(fd, line + [UInt8(ascii: "\n")], path: path)
        try fsync(fd, path: path)
    }

    /// SPEC §2: temp in the same directory, fsync, rename over the target, fsync the directory.
    /// A crash leaves the old or the new file, never a partial one (the temp is a dot file
    /// that nothing serves).
    public static func atomicReplace(_ path: String, with bytes: [UInt8]) throws(CatalogError) {
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        let temp = "\(directory)/.\(name).tmp-\(getpid())-\(randomHex(bytes: 6))"
        let fd = try open(temp, O_WRONLY | O_CREAT | O_EXCL, 0o644)
        do throws(CatalogError) {
            try writeAll(fd, bytes, path: temp)
            try fsync(fd, path: temp)
            close(fd)
            try rename(temp, path)
        } catch {
            close(fd)   // harmless EBADF when already closed
            unlink(temp)
            throw error
        }
        try fsyncDirectory(directory)
    }
}

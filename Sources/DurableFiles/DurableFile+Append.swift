#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one durable line appender (guard decisions, the ship ledger, the console's audit log,
/// the client's event queue): every line read back is whole, and a line counts as recorded
/// once `appendLine` returns.
extension DurableFile {
    /// Appends `line` and a newline to `path` (created if missing) and fsyncs it before
    /// returning. Short writes and EINTR are retried. A torn tail — the part of a line whose
    /// append never returned, left by a crash — is cut off first, so it can neither swallow
    /// this line nor be read as one. An exclusive `flock` for the duration keeps appenders in
    /// other processes from cutting a line still being written; a crashed holder's lock is
    /// released with its process.
    public static func appendLine(_ line: [UInt8], to path: String, mode: mode_t = 0o644,
                                  using write: Write? = nil) throws(IOFailure) {
        let fd = try open(path, O_RDWR | O_APPEND | O_CREAT, mode: mode)
        defer { close(fd) }
        while flock(fd, LOCK_EX) != 0 {
            if errno != EINTR { throw IOFailure(path: path, operation: "flock", code: errno) }
        }
        try repairTornTail(fd, path: path)
        let failure: IOFailure? = (line + [UInt8(ascii: "\n")]).withUnsafeBytes { raw in
            do throws(IOFailure) { try writeAll(fd, raw, path: path, using: write); return nil } catch { return error }
        }
        if let failure { throw failure }
        try sync(fd, path: path)
    }

    /// Opens `path` (created if missing) for a writer that appends many lines and makes them
    /// durable in groups with `sync` (the client's event queue, SPEC §13.2), after cutting a
    /// torn tail as `appendLine` does. The caller owns the descriptor, and holds the only
    /// writer's lock itself.
    public static func openForAppending(_ path: String, mode: mode_t = 0o644) throws(IOFailure) -> Int32 {
        let fd = try open(path, O_RDWR | O_APPEND | O_CREAT, mode: mode)
        do throws(IOFailure) { try repairTornTail(fd, path: path) } catch {
            close(fd)
            throw error
        }
        return fd
    }

    /// Truncates the file after its last newline when it does not end with one. The cut is
    /// made durable by the fsync of the append that follows.
    static func repairTornTail(_ fd: Int32, path: String) throws(IOFailure) {
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw IOFailure(path: path, operation: "fstat", code: errno) }
        var end = Int64(info.st_size)
        guard end > 0 else { return }
        var chunk = [UInt8](repeating: 0, count: 4096)
        var lastByteChecked = false
        while end > 0 {
            let start = max(0, end - Int64(chunk.count))
            let count = Int(end - start)
            let n = chunk.withUnsafeMutableBytes { pread(fd, $0.baseAddress, count, off_t(start)) }
            if n < 0 {
                if errno == EINTR { continue }
                throw IOFailure(path: path, operation: "read", code: errno)
            }
            guard n == count else { throw IOFailure(path: path, operation: "read", code: EIO) }
            if !lastByteChecked {
                if chunk[count - 1] == UInt8(ascii: "\n") { return }
                lastByteChecked = true
            }
            if let newline = chunk[0..<count].lastIndex(of: UInt8(ascii: "\n")) {
                end = start + Int64(newline) + 1
                break
            }
            end = start
        }
        guard ftruncate(fd, off_t(end)) == 0 else { throw IOFailure(path: path, operation: "ftruncate", code: errno) }
    }
}

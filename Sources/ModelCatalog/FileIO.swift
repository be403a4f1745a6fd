import DurableFiles
#if canImport(Glibc)
import Glibc
#endif

/// The catalog's view of DurableFiles: the same calls, every failure a `CatalogError`, with
/// ENOSPC/EDQUOT as `insufficient_storage` (507) so callers can tell a full disk from a broken one.
public enum FileIO {
    static func error(_ op: String, _ path: String, _ code: Int32 = errno) -> CatalogError {
        IOFailure(path: path, operation: op, code: code).catalogError
    }

    public static func open(_ path: String, _ flags: Int32, _ mode: mode_t = 0o644) throws(CatalogError) -> Int32 {
        do { return try DurableFile.open(path, flags, mode: mode) } catch { throw error.catalogError }
    }

    public static func writeAll(_ fd: Int32, _ bytes: [UInt8], path: String) throws(CatalogError) {
        do { try DurableFile.writeAll(fd, bytes, path: path) } catch { throw error.catalogError }
    }

    static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws(CatalogError) {
        do { try DurableFile.writeAll(fd, bytes, path: path) } catch { throw error.catalogError }
    }

    public static func fsync(_ fd: Int32, path: String) throws(CatalogError) {
        do { try DurableFile.sync(fd, path: path) } catch { throw error.catalogError }
    }

    static func fsyncDirectory(_ directory: String) throws(CatalogError) {
        do { try DurableFile.syncDirectory(directory) } catch { throw error.catalogError }
    }

    /// The whole file, or nil when it does not exist.
    public static func read(_ path: String) throws(CatalogError) -> [UInt8]? {
        do { return try DurableFile.read(path) } catch { throw error.catalogError }
    }

    /// Renames without the directory fsync: the caller syncs once after its last change.
    static func rename(_ from: String, _ to: String) throws(CatalogError) {
        guard Glibc.rename(from, to) == 0 else { throw error("rename \(from) to", to) }
    }

    public static func makeDirectory(_ path: String) throws(CatalogError) {
        do { try DurableFile.makeDirectories(path) } catch { throw error.catalogError }
    }

    static func exists(_ path: String) -> Bool { DurableFile.exists(path) }

    public static func entries(of directory: String) -> [String] { DurableFile.entries(of: directory) ?? [] }

    /// SPEC §2 atomic replace (see `DurableFile.replace`).
    public static func atomicReplace(_ path: String, with bytes: [UInt8]) throws(CatalogError) {
        do { try DurableFile.replace(path, with: bytes) } catch { throw error.catalogError }
    }

    public static func appendLine(_ line: [UInt8], to path: String) throws(CatalogError) {
        do { try DurableFile.appendLine(line, to: path) } catch { throw error.catalogError }
    }
}

extension IOFailure {
    var catalogError: CatalogError {
        CatalogError(isOutOfSpace ? .insufficientStorage : .io, description)
    }
}

#if canImport(Glibc)
import Glibc
#endif
import ChunkList
import ContentDigest
import DurableFiles

// A chunk list's file I/O (SPEC §14); the record itself is CatalogValue's.
extension ChunkListFile {
    /// Writes the encoded list `bytes` as `directory/<file>.chunks` durably (temp, fsync,
    /// rename, fsync the directory).
    static func write(_ bytes: [UInt8], directory: String, file: String) throws(CatalogError) {
        try FileIO.atomicReplace(directory + "/" + name(of: file), with: bytes)
    }

    /// The list and the SHA-256 of the file at `path`, both in one pass over it, read 1 MiB at
    /// a time (never whole in memory).
    public static func build(path: String) throws(CatalogError) -> (list: ChunkList, sha256: String) {
        let fd = try FileIO.open(path, O_RDONLY)
        defer { close(fd) }
        var reader = HashingFileReader(fd: fd, path: path)
        let list: ChunkList
        do {
            list = try ChunkListBuilder.build { buffer in try reader.read(into: buffer) }
        } catch {
            throw (error as? IOFailure)?.catalogError ?? CatalogError(.io, "read \(path): \(error)")
        }
        return (list, reader.hex())
    }
}

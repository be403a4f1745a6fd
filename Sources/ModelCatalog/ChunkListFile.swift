#if canImport(Glibc)
import Glibc
#endif
import BinaryText
import ChunkList
import ContentDigest
import DurableFiles
import JSONSupport

/// A file's published chunk list (SPEC §14): `models/<file>.chunks`, immutable, recorded in the
/// catalog by its digest and size so that the §4.1 document (and so §12's signatures) covers it.
public struct ChunkListFile: Hashable, Sendable {
    public let sha256: String
    public let size: Int64

    public init(sha256: String, size: Int64) throws(CatalogError) {
        guard Hex.isLowercase(sha256, bytes: 32) else { throw .invalid("chunks.sha256", "must be 64 lowercase hex digits") }
        guard size >= ChunkList.headerSize else { throw .invalid("chunks.size", "must be at least \(ChunkList.headerSize)") }
        self.sha256 = sha256
        self.size = size
    }

    /// `<file>.chunks`: the list's name next to `file`.
    public static func name(of file: String) -> String { file + ChunkList.fileSuffix }

    /// The record of a list encoded as `bytes`.
    public init(encoded bytes: [UInt8]) {
        sha256 = SHA256Hex.of(bytes)
        size = Int64(bytes.count)
    }

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

    func write(to w: inout JSONWriter, publicBaseURL: String?, file: String) {
        w.beginObject()
        if let publicBaseURL { w.field("url", Release.url(publicBaseURL: publicBaseURL, file: ChunkListFile.name(of: file))) }
        w.field("sha256", sha256)
        w.field("size", size)
        w.endObject()
    }
}

import BinaryText
import ChunkList
import ContentDigest
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

    /// The reference an answer names it by (SPEC §14).
    package func reference(publicBaseURL: String, file: String) -> ChunkListReference {
        ChunkListReference(url: Release.url(publicBaseURL: publicBaseURL, file: Self.name(of: file)), sha256: sha256, size: size)
    }

    package func write(to w: inout JSONWriter, publicBaseURL: String?, file: String) {
        w.beginObject()
        if let publicBaseURL { w.field("url", Release.url(publicBaseURL: publicBaseURL, file: ChunkListFile.name(of: file))) }
        w.field("sha256", sha256)
        w.field("size", size)
        w.endObject()
    }
}

import BinaryText
import JSONSupport

/// A device-class file of a release (SPEC §3.1): its own immutable UUID file, answered instead
/// of the release's when its requirements hold. A removed variant stays listed (with
/// `removed_at`) until garbage collection deletes its file, so downloads in progress finish and
/// GC knows what to delete (docs/decisions/variants.md).
public struct Variant: Hashable, Sendable {
    public let name: String
    /// The file's own random v4 UUID (never the release's id).
    public let fileID: String
    public let ext: String
    public let sha256: String
    public let size: Int64
    /// As ``Release/unpackedSize``, for this file.
    public package(set) var unpackedSize: Int64?
    /// The file's chunk list (SPEC §14); nil until backfilled for variants added before v4.
    public package(set) var chunks: ChunkListFile?
    /// Its packed file and patches against the same-named variant of earlier releases (SPEC
    /// §16); nil until derived.
    public package(set) var transfer: TransferFiles?
    public let requires: VariantRequirements
    public let addedAt: Timestamp
    public package(set) var removedAt: Timestamp?
    public package(set) var fileDeletedAt: Timestamp?

    public var file: String { "\(fileID).\(ext)" }
    public var contentType: String { Release.defaultContentType(forExt: ext) }
    /// Answered by update checks: not removed.
    public var isLive: Bool { removedAt == nil }

    public init(
        name: String, fileID: String, ext: String, sha256: String, size: Int64, chunks: ChunkListFile? = nil,
        transfer: TransferFiles? = nil, requires: VariantRequirements,
        addedAt: Timestamp, removedAt: Timestamp? = nil, fileDeletedAt: Timestamp? = nil
    ) throws(CatalogError) {
        try Variant.validateName(name)
        try Release.validateID(fileID)
        try Release.validateExt(ext)
        guard Hex.isLowercase(sha256, bytes: 32) else { throw .invalid("sha256", "must be 64 lowercase hex digits") }
        guard size >= 0 else { throw .invalid("size", "must not be negative") }
        self.name = name
        self.fileID = fileID
        self.ext = ext
        self.sha256 = sha256
        self.size = size
        self.chunks = chunks
        self.transfer = transfer
        self.requires = requires
        self.addedAt = addedAt
        self.removedAt = removedAt
        self.fileDeletedAt = fileDeletedAt
    }

    public static func validateName(_ name: String) throws(CatalogError) {
        guard Release.isName(name) else { throw .invalid("name", "must match [a-z0-9_-]{1,32}") }
    }

    package func write(to w: inout JSONWriter, publicBaseURL: String?) {
        w.beginObject()
        if let publicBaseURL { w.field("url", Release.url(publicBaseURL: publicBaseURL, file: file)) }
        w.field("name", name)
        w.field("file", file)
        w.field("sha256", sha256)
        w.field("size", size)
        if let unpackedSize { w.field("unpacked_size", unpackedSize) }
        if let chunks {
            w.key("chunks")
            chunks.write(to: &w, publicBaseURL: publicBaseURL, file: file)
        }
        transfer?.writeFields(to: &w, publicBaseURL: publicBaseURL, file: file)
        w.key("requires")
        requires.write(to: &w)
        w.field("added_at", addedAt.rfc3339)
        if let removedAt { w.field("removed_at", removedAt.rfc3339) }
        if let fileDeletedAt { w.field("file_deleted_at", fileDeletedAt.rfc3339) }
        w.endObject()
    }
}

extension Variant: SelectableVariant {}

extension Release: SelectableRelease {
    public var isSelectable: Bool { state == .active }

    public func liveVariant(named name: String) -> Variant? {
        variants.first { $0.isLive && $0.name == name }
    }

    /// The add-variant pre-checks (SPEC §3.1), one rule for every writer: 409 `retired`, 409
    /// `id_in_use` for a live name. The server answers them from the request head; the
    /// catalog change runs them again under the lock.
    public func precheckVariant(named name: String) throws(CatalogError) {
        guard state != .retired else { throw CatalogError(.retired, parameter: "id", "release \(id) is retired and cannot change") }
        guard liveVariant(named: name) == nil else {
            throw CatalogError(.idInUse, parameter: "name", "release \(id) already has a variant named \(name)")
        }
    }
}

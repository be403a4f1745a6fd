import BinaryText
import JSONSupport

/// What the derivation worker made of one model or variant file (SPEC §16): its packed form
/// `<file>.pack` when that is ≥ 5 % smaller, and `<file>.from-<base-id>.patch` for each base
/// whose patch is ≥ 10 % smaller than the pack or the file. Recorded in the catalog by digest and
/// size, like `.chunks` lists, so the answers (and §12's signatures) cover them. A file without
/// a record is still to be derived; a record with neither is "derived, nothing worth keeping".
public struct TransferFiles: Hashable, Sendable {
    public struct Packed: Hashable, Sendable {
        public let sha256: String
        public let size: Int64
        /// The byte-plane width the encoder chose (1, 2 or 4).
        public let width: Int

        public init(sha256: String, size: Int64, width: Int) throws(CatalogError) {
            guard Hex.isLowercase(sha256, bytes: 32) else { throw .invalid("packed.sha256", "must be 64 lowercase hex digits") }
            guard size > 0 else { throw .invalid("packed.size", "must be positive") }
            guard [1, 2, 4].contains(width) else { throw .invalid("packed.width", "must be 1, 2 or 4") }
            self.sha256 = sha256
            self.size = size
            self.width = width
        }
    }

    public struct Patch: Hashable, Sendable {
        /// The base release's id (for a variant: the release whose same-named variant is the base).
        public let from: String
        public let sha256: String
        public let size: Int64

        public init(from: String, sha256: String, size: Int64) throws(CatalogError) {
            do throws(CatalogError) { try Release.validateID(from) } catch { throw .invalid("patches.from", error.message) }
            guard Hex.isLowercase(sha256, bytes: 32) else { throw .invalid("patches.sha256", "must be 64 lowercase hex digits") }
            guard size > 0 else { throw .invalid("patches.size", "must be positive") }
            self.from = from
            self.sha256 = sha256
            self.size = size
        }
    }

    public var packed: Packed?
    /// Newest base first.
    public var patches: [Patch]

    public init(packed: Packed? = nil, patches: [Patch] = []) {
        self.packed = packed
        self.patches = patches
    }

    /// A pack is kept when it saves at least 5 % of the file (SPEC §16).
    public static func keepsPack(coded: Int64, fileSize: Int64) -> Bool { coded * 100 <= fileSize * 95 }

    /// A patch is kept when it saves at least 10 % of the cheapest other whole-file transfer:
    /// the pack when there is one, else the file (SPEC §16; docs/decisions/tensor-pack.md).
    public static func keepsPatch(coded: Int64, fileSize: Int64, packSize: Int64?) -> Bool {
        coded * 10 <= min(fileSize, packSize ?? fileSize) * 9
    }

    public static func packName(of file: String) -> String { file + ".pack" }
    public static func patchName(of file: String, from base: String) -> String { "\(file).from-\(base).patch" }

    /// Every derived file name of `file` this record names.
    public func names(of file: String) -> [String] {
        (packed != nil ? [Self.packName(of: file)] : []) + patches.map { Self.patchName(of: file, from: $0.from) }
    }

    /// `"packed":{…}` and `"patches":[…]` of a derived file, in the catalog and in every answer
    /// (§4.1, rules, details, admin): `url` first when a base is known; `packed` absent when no
    /// pack was kept, `patches` always present, possibly `[]` — it is what tells a script the
    /// file is derived (SPEC §16.1), so a file without a record has neither.
    /// The references an answer names them by (SPEC §16).
    package func packedReference(publicBaseURL: String, file: String) -> PackedReference? {
        packed.map { PackedReference(url: Release.url(publicBaseURL: publicBaseURL, file: Self.packName(of: file)), sha256: $0.sha256, size: $0.size, width: $0.width) }
    }

    package func patchReferences(publicBaseURL: String, file: String) -> [PatchReference] {
        patches.map { PatchReference(from: $0.from, url: Release.url(publicBaseURL: publicBaseURL, file: Self.patchName(of: file, from: $0.from)), sha256: $0.sha256, size: $0.size) }
    }

    package func writeFields(to w: inout JSONWriter, publicBaseURL: String?, file: String) {
        if let packed {
            w.key("packed")
            w.beginObject()
            if let publicBaseURL { w.field("url", Release.url(publicBaseURL: publicBaseURL, file: Self.packName(of: file))) }
            w.field("sha256", packed.sha256)
            w.field("size", packed.size)
            w.field("width", packed.width)
            w.endObject()
        }
        writePatches(to: &w, publicBaseURL: publicBaseURL, file: file)
    }

    private func writePatches(to w: inout JSONWriter, publicBaseURL: String?, file: String) {
        w.key("patches")
        w.beginArray()
        for p in patches {
            w.beginObject()
            w.field("from", p.from)
            if let publicBaseURL { w.field("url", Release.url(publicBaseURL: publicBaseURL, file: Self.patchName(of: file, from: p.from))) }
            w.field("sha256", p.sha256)
            w.field("size", p.size)
            w.endObject()
        }
        w.endArray()
    }
}

/// A file derived from a model or variant file and named after it — its chunk list (SPEC §14),
/// pack and patches (§16): served, mirrored and collected with it.
public struct DerivedFile: Sendable, Equatable {
    public let name: String
    public let sha256: String
    public let size: Int64

    /// Every derived file the catalog records for `file`, chunk list first.
    public static func all(of file: String, chunks: ChunkListFile?, transfer: TransferFiles?) -> [DerivedFile] {
        var out: [DerivedFile] = []
        if let chunks { out.append(DerivedFile(name: ChunkListFile.name(of: file), sha256: chunks.sha256, size: chunks.size)) }
        if let packed = transfer?.packed { out.append(DerivedFile(name: TransferFiles.packName(of: file), sha256: packed.sha256, size: packed.size)) }
        for p in transfer?.patches ?? [] {
            out.append(DerivedFile(name: TransferFiles.patchName(of: file, from: p.from), sha256: p.sha256, size: p.size))
        }
        return out
    }
}

extension Release {
    /// The release's own derived files.
    public var derivedFiles: [DerivedFile] { DerivedFile.all(of: file, chunks: chunks, transfer: transfer) }
}

extension Variant {
    public var derivedFiles: [DerivedFile] { DerivedFile.all(of: file, chunks: chunks, transfer: transfer) }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Guardrails
import JSONSupport

// catalog.json: {"format":1,"catalog_version":V,"public_base_url":U,"next_seq":N,"releases":[<admin form without url>, …]}
extension Catalog {
    public func encoded() -> [UInt8] {
        var w = JSONWriter(capacity: 256 + releases.count * 420)
        w.beginObject()
        w.field("format", Catalog.formatVersion)
        w.field("catalog_version", catalogVersion)
        if let publicBaseURL { w.field("public_base_url", publicBaseURL) }
        w.field("next_seq", nextSeq)
        w.key("releases")
        w.beginArray()
        for r in releases { r.writeEntry(to: &w, publicBaseURL: nil) }
        w.endArray()
        w.endObject()
        return w.bytes + [UInt8(ascii: "\n")]
    }

    /// Strict: bad JSON, an unknown format, any invalid release or broken invariant throws
    /// `corrupt_catalog` saying where (the server then keeps the catalog it has, SPEC §8).
    public init(decoding bytes: [UInt8]) throws(CatalogError) {
        let file: CatalogFileDTO
        do {
            file = try JSONDecoder().decode(CatalogFileDTO.self, from: Data(bytes))
        } catch {
            throw CatalogError(.corruptCatalog, "catalog.json is not a valid catalog: \(error)")
        }
        guard file.format == Catalog.formatVersion else {
            throw CatalogError(.corruptCatalog, parameter: "format", "unsupported catalog format \(file.format)")
        }
        var releases: [Release] = []
        releases.reserveCapacity(file.releases.count)
        for (i, e) in file.releases.enumerated() {
            do throws(CatalogError) {
                guard let publishedAt = Timestamp(rfc3339: e.published_at) else { throw .invalid("published_at", "not an RFC 3339 time") }
                func time(_ s: String?, _ name: String) throws(CatalogError) -> Timestamp? {
                    guard let s else { return nil }
                    guard let t = Timestamp(rfc3339: s) else { throw .invalid(name, "not an RFC 3339 time") }
                    return t
                }
                guard let state = Release.State(rawValue: e.state) else { throw .invalid("state", "must be active, paused or retired") }
                let r = try Release(
                    id: e.id, seq: e.seq, ext: e.ext, sha256: e.sha256, size: e.size, chunks: try e.chunks?.file(),
                    transfer: try TransferDTO.files(packed: e.packed, patches: e.patches), sdkMin: e.sdk_min, sdkMax: e.sdk_max, channel: e.channel, rolloutPercent: e.rollout_percent,
                    state: state, label: e.label ?? "", publishedAt: publishedAt,
                    retiredAt: try time(e.retired_at, "retired_at"), fileDeletedAt: try time(e.file_deleted_at, "file_deleted_at"),
                    contentType: e.content_type, variants: try (e.variants ?? []).enumerated().map { (j, v) throws(CatalogError) in
                        do throws(CatalogError) { return try v.variant(time) } catch {
                            throw .invalid("variants[\(j)].\(error.parameter ?? "")", error.message)
                        }
                    }, guardPlan: try e.guard.map(Self.storedGuard))
                if let f = e.file, f != r.file { throw .invalid("file", "\(f) is not <id>.<ext> (\(r.file))") }
                releases.append(r)
            } catch {
                throw CatalogError(.corruptCatalog, parameter: "releases[\(i)].\(error.parameter ?? "")", "release \(e.id): \(error.message)")
            }
        }
        // Absent in catalogs written before SPEC §12: 0 until the first change writes 1.
        try self.init(releases: releases, nextSeq: file.next_seq, catalogVersion: file.catalog_version ?? 0,
                      publicBaseURL: file.public_base_url)
    }
}

extension Catalog {
    /// A stored guard, runtime fields included, in the catalog's own time format.
    fileprivate static func storedGuard(_ document: GuardPlan.Document) throws(CatalogError) -> GuardPlan {
        do {
            return try GuardPlan(stored: document, parseTime: { Timestamp(rfc3339: $0)?.millisecondsSinceEpoch })
        } catch {
            throw .invalid(error.field, error.message)
        }
    }
}

private struct CatalogFileDTO: Decodable {
    var format: Int
    var catalog_version: Int64?
    var public_base_url: String?
    var next_seq: Int64?
    var releases: [ReleaseDTO]
}

private struct ReleaseDTO: Decodable {
    var id: String
    var seq: Int64
    var file: String?
    var ext: String
    var sha256: String
    var size: Int64
    var chunks: ChunksDTO?
    var packed: PackedDTO?
    var patches: [PatchDTO]?
    var sdk_min: String
    var sdk_max: String?
    var channel: String
    var rollout_percent: Int
    var state: String
    var label: String?
    var published_at: String
    var retired_at: String?
    var file_deleted_at: String?
    var content_type: String?
    /// Absent in catalogs written before SPEC §11 and on unguarded releases.
    var `guard`: GuardPlan.Document?
    var variants: [VariantDTO]?
}

private struct VariantDTO: Decodable {
    var name: String
    var file: String
    var sha256: String
    var size: Int64
    var chunks: ChunksDTO?
    var packed: PackedDTO?
    var patches: [PatchDTO]?
    var requires: VariantRequirements
    var added_at: String
    var removed_at: String?
    var file_deleted_at: String?

    func variant(_ time: (String?, String) throws(CatalogError) -> Timestamp?) throws(CatalogError) -> Variant {
        // `file` is `<uuid>.<ext>`: the UUID has no dot, so the extension is everything after the first.
        guard let dot = file.firstIndex(of: ".") else { throw .invalid("file", "\(file) is not <uuid>.<ext>") }
        guard let addedAt = try time(added_at, "added_at") else { throw .invalid("added_at", "is required") }
        return try Variant(
            name: name, fileID: String(file[..<dot]), ext: String(file[file.index(after: dot)...]), sha256: sha256, size: size,
            chunks: try chunks?.file(), transfer: try TransferDTO.files(packed: packed, patches: patches), requires: requires,
            addedAt: addedAt, removedAt: try time(removed_at, "removed_at"), fileDeletedAt: try time(file_deleted_at, "file_deleted_at"))
    }
}

private struct ChunksDTO: Decodable {
    var sha256: String
    var size: Int64

    func file() throws(CatalogError) -> ChunkListFile { try ChunkListFile(sha256: sha256, size: size) }
}

private struct PackedDTO: Decodable {
    var sha256: String
    var size: Int64
    var width: Int
}

private struct PatchDTO: Decodable {
    var from: String
    var sha256: String
    var size: Int64
}

private enum TransferDTO {
    /// `patches` (even empty) marks a derived file (SPEC §16); a `packed` without it is corrupt.
    static func files(packed: PackedDTO?, patches: [PatchDTO]?) throws(CatalogError) -> TransferFiles? {
        guard let patches else {
            if packed != nil { throw .invalid("patches", "is required beside packed") }
            return nil
        }
        return TransferFiles(
            packed: try packed.map { (p) throws(CatalogError) in try TransferFiles.Packed(sha256: p.sha256, size: p.size, width: p.width) },
            patches: try patches.map { (p) throws(CatalogError) in try TransferFiles.Patch(from: p.from, sha256: p.sha256, size: p.size) })
    }
}

// models/latest_model_details.json (SPEC §2)
extension Catalog {
    /// The versions at which the no-client-id stable answer can change: every distinct
    /// `sdk_min` and `sdk_max` of the active, stable, 100 % releases, ascending.
    public func latestDetailsKeys() -> [SDKVersion] {
        var keys = Set<SDKVersion>()
        for r in releases where r.state == .active && r.channel == Release.defaultChannel && r.rolloutPercent == 100 {
            keys.insert(r.sdkMinVersion)
            if let m = r.sdkMaxVersion { keys.insert(m) }
        }
        return keys.sorted()
    }

    /// `{"<M.m.p>": <§4.1 document> | null, …}`, keys ascending; each value is exactly what
    /// selection gives a stable client at that version without client_id.
    public func latestDetailsJSON(publicBaseURL: String) -> [UInt8] {
        var w = JSONWriter(capacity: 64 + releases.count * 360)
        w.beginObject()
        for v in latestDetailsKeys() {
            w.key(v.description)
            if let r = select(sdk: v, clientID: nil).release {
                r.writeDocument(to: &w, publicBaseURL: publicBaseURL)
            } else {
                w.null()
            }
        }
        w.endObject()
        return w.bytes + [UInt8(ascii: "\n")]
    }
}

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
        // Unchanged entries are written as stored: their sizes make the capacity (one buffer,
        // no growth copy of megabytes).
        var w = JSONWriter(capacity: 256 + releases.reduce(0) { $0 + ($1.storedEntry?.count ?? 1024) + 1 })
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
        return w.line()
    }

    /// Strict: bad JSON, an unknown format, any invalid release or broken invariant throws
    /// `corrupt_catalog` saying where (the server then keeps the catalog it has, SPEC §8).
    /// JSONSupport's reader straight into `Release` values (SPEC §17.1: a reload ≤ 100 ms at
    /// 10,000 releases): Foundation's JSONDecoder through DTOs was 40 % of a reload.
    /// `previous`: the version this file most likely follows (the one last loaded or written).
    /// An entry whose bytes are exactly those its release at the same position there was decoded
    /// from (or encodes to) is that release, taken without decoding: a change rewrites a few
    /// entries of thousands.
    public init(decoding bytes: [UInt8], previous: Catalog? = nil) throws(CatalogError) {
        let tape: JSONTape
        do { tape = try JSONTape(bytes) } catch {
            throw CatalogError(.corruptCatalog, "catalog.json is not valid JSON: \(error)")
        }
        var decoder = StoredDecoder(bytes: bytes)
        let file: StoredObject, format: Int64
        do throws(CatalogError) {
            file = try StoredObject(tape, tape.root)
            let stored: Int64? = try file.int("format")
            format = try file.required("format", stored)
        } catch {
            throw CatalogError(.corruptCatalog, parameter: error.parameter, "catalog.json is not a valid catalog: \(error.message)")
        }
        guard format == Int64(Catalog.formatVersion) else {
            throw CatalogError(.corruptCatalog, parameter: "format", "unsupported catalog format \(format)")
        }
        var releases: [Release] = []
        let nextSeq: Int64?, catalogVersion: Int64?, publicBaseURL: String?
        do throws(CatalogError) {
            nextSeq = try file.int("next_seq")
            catalogVersion = try file.int("catalog_version")
            publicBaseURL = try file.string("public_base_url")
            let entries = try file.required("releases", try file.array("releases"))
            let known = previous?.releases ?? []
            var encoded = JSONWriter(capacity: 1024)
            releases.reserveCapacity(entries.count)
            for (i, element) in entries.enumerated() {
                if i < known.count {
                    let same: Bool
                    if let entry = known[i].storedEntry {
                        same = tape.text(of: element, equals: entry)
                    } else {
                        encoded.removeAll()
                        known[i].writeEntry(to: &encoded, publicBaseURL: nil)
                        same = tape.text(of: element, equals: encoded.bytes)
                    }
                    if same {
                        releases.append(known[i])
                        continue
                    }
                }
                do throws(CatalogError) {
                    var release = try decoder.release(try StoredObject(tape, element))
                    release.keepEntry(bytes[tape.range(element)])
                    releases.append(release)
                } catch {
                    let id = (try? StoredObject(tape, element).string("id")) ?? nil
                    throw CatalogError(.corruptCatalog, parameter: "releases[\(i)]" + (error.parameter.map { $0.isEmpty ? "" : "." + $0 } ?? ""),
                                       "release \(id ?? "?"): \(error.message)")
                }
            }
        } catch where error.code == .corruptCatalog {
            throw error
        } catch {
            throw CatalogError(.corruptCatalog, parameter: error.parameter, "catalog.json is not a valid catalog: \(error.message)")
        }
        // Absent in catalogs written before SPEC §12: 0 until the first change writes 1.
        try self.init(releases: releases, nextSeq: nextSeq, catalogVersion: catalogVersion ?? 0, publicBaseURL: publicBaseURL)
    }
}

/// One object of catalog.json with typed member reads: absent and `null` are nil (as the
/// optional fields were always read), a wrong type throws `invalid` naming the member.
private struct StoredObject {
    let tape: JSONTape
    let value: Int

    init(_ tape: JSONTape, _ value: Int) throws(CatalogError) {
        guard tape.kind(value) == .object else { throw .invalid("", "must be an object") }
        (self.tape, self.value) = (tape, value)
    }

    func node(_ key: String) -> Int? {
        guard let v = tape.member(value, key), tape.kind(v) != .null else { return nil }
        return v
    }

    func string(_ key: String) throws(CatalogError) -> String? {
        guard let n = node(key) else { return nil }
        guard let s = tape.string(n) else { throw .invalid(key, "must be a string") }
        return s
    }

    func int(_ key: String) throws(CatalogError) -> Int64? {
        guard let n = node(key) else { return nil }
        guard let v = tape.integer(n) else { throw .invalid(key, "must be an integer") }
        return v
    }

    func array(_ key: String) throws(CatalogError) -> [Int]? {
        guard let n = node(key) else { return nil }
        guard let elements = tape.elements(n) else { throw .invalid(key, "must be an array") }
        return elements
    }

    func object(_ key: String) throws(CatalogError) -> StoredObject? {
        guard let n = node(key) else { return nil }
        do throws(CatalogError) { return try StoredObject(tape, n) } catch { throw .invalid(key, error.message) }
    }

    func required<T>(_ key: String, _ value: T?) throws(CatalogError) -> T {
        guard let value else { throw .invalid(key, "is required") }
        return value
    }

    /// Parsed from the text in place: four times a release, no String for each.
    func time(_ key: String) throws(CatalogError) -> Timestamp? {
        guard let n = node(key) else { return nil }
        guard let parsed = tape.withText(n, { Timestamp(rfc3339UTF8: $0) }) else { throw .invalid(key, "must be a string") }
        guard let t = parsed else { throw .invalid(key, "not an RFC 3339 time") }
        return t
    }

    /// Whether the string member `key` is `text`, compared in place (nil when absent).
    func string(_ key: String, equals text: String) throws(CatalogError) -> Bool? {
        guard let n = node(key) else { return nil }
        guard let same = tape.withText(n, { $0.elementsEqual(text.utf8) }) else { throw .invalid(key, "must be a string") }
        return same
    }

    func int(_ key: String) throws(CatalogError) -> Int? {
        guard let v: Int64 = try int(key) else { return nil }
        guard let i = Int(exactly: v) else { throw .invalid(key, "must be an integer") }
        return i
    }
}

/// Reads releases out of the parsed catalog. The members whose types have their own Decodable
/// rules (a variant's `requires`, `base`, `license`, a guard) go through those, with JSONDecoder
/// over the member's own bytes; requirements, bases and licences repeat across releases, so
/// each distinct text is decoded once.
private struct StoredDecoder {
    let bytes: [UInt8]
    private var requirements: [ArraySlice<UInt8>: VariantRequirements] = [:]
    private var bases: [ArraySlice<UInt8>: ReleaseBase] = [:]
    private var licenses: [ArraySlice<UInt8>: ReleaseLicense] = [:]

    init(bytes: [UInt8]) { self.bytes = bytes }

    mutating func release(_ e: StoredObject) throws(CatalogError) -> Release {
        let id = try e.required("id", try e.string("id"))
        let ext = try e.required("ext", try e.string("ext"))
        let stateText = try e.required("state", try e.string("state"))
        guard let state = Release.State(rawValue: stateText) else { throw .invalid("state", "must be active, paused or retired") }
        let license = try decoded("license", in: e, memo: &licenses)
        let r = try Release(
            id: id, seq: try e.required("seq", try e.int("seq")), ext: ext, sha256: try e.required("sha256", try e.string("sha256")),
            size: try e.required("size", try e.int("size")), chunks: try chunks(e), transfer: try transfer(e),
            sdkMin: try e.required("sdk_min", try e.string("sdk_min")), sdkMax: try e.string("sdk_max"),
            channel: try e.required("channel", try e.string("channel")), rolloutPercent: try e.required("rollout_percent", try e.int("rollout_percent")),
            state: state, label: try e.string("label") ?? "", publishedAt: try e.required("published_at", try e.time("published_at")),
            retiredAt: try e.time("retired_at"), fileDeletedAt: try e.time("file_deleted_at"),
            contentType: try e.string("content_type"), variants: try variants(e), guardPlan: try guardPlan(e),
            base: try decoded("base", in: e, memo: &bases),
            info: try ReleaseInfo(displayName: try e.string("display_name"), license: license, minRAMMB: try e.int("min_ram_mb")),
            exposedAt: try e.time("exposed_at"), unpackedSize: try unpackedSize(e))
        if try e.string("file", equals: r.file) == false, let f = try e.string("file") {
            throw .invalid("file", "\(f) is not <id>.<ext> (\(r.file))")
        }
        return r
    }

    private mutating func variants(_ e: StoredObject) throws(CatalogError) -> [Variant] {
        var variants: [Variant] = []
        for (j, element) in (try e.array("variants") ?? []).enumerated() {
            do throws(CatalogError) { variants.append(try variant(try StoredObject(e.tape, element))) } catch {
                throw .invalid("variants[\(j)]" + (error.parameter.map { $0.isEmpty ? "" : "." + $0 } ?? ""), error.message)
            }
        }
        return variants
    }

    private mutating func variant(_ v: StoredObject) throws(CatalogError) -> Variant {
        let file = try v.required("file", try v.string("file"))
        // `file` is `<uuid>.<ext>`: the UUID has no dot, so the extension is everything after the first.
        guard let dot = file.firstIndex(of: ".") else { throw .invalid("file", "\(file) is not <uuid>.<ext>") }
        var variant = try Variant(
            name: try v.required("name", try v.string("name")), fileID: String(file[..<dot]), ext: String(file[file.index(after: dot)...]),
            sha256: try v.required("sha256", try v.string("sha256")), size: try v.required("size", try v.int("size")),
            chunks: try chunks(v), transfer: try transfer(v),
            requires: try v.required("requires", try decoded("requires", in: v, memo: &requirements)),
            addedAt: try v.required("added_at", try v.time("added_at")), removedAt: try v.time("removed_at"),
            fileDeletedAt: try v.time("file_deleted_at"))
        variant.unpackedSize = try unpackedSize(v)
        return variant
    }

    private func unpackedSize(_ e: StoredObject) throws(CatalogError) -> Int64? {
        let value: Int64? = try e.int("unpacked_size")
        if let value, value < 0 { throw .invalid("unpacked_size", "must not be negative") }
        return value
    }

    private func chunks(_ e: StoredObject) throws(CatalogError) -> ChunkListFile? {
        guard let c = try e.object("chunks") else { return nil }
        do throws(CatalogError) {
            return try ChunkListFile(sha256: try c.required("sha256", try c.string("sha256")), size: try c.required("size", try c.int("size")))
        } catch {
            throw .invalid("chunks." + (error.parameter ?? ""), error.message)
        }
    }

    /// `patches` (even empty) marks a derived file (SPEC §16); a `packed` without it is corrupt.
    private func transfer(_ e: StoredObject) throws(CatalogError) -> TransferFiles? {
        guard let patches = try e.array("patches") else {
            if e.node("packed") != nil { throw .invalid("patches", "is required beside packed") }
            return nil
        }
        var packed: TransferFiles.Packed?
        if let p = try e.object("packed") {
            do throws(CatalogError) {
                packed = try TransferFiles.Packed(sha256: try p.required("sha256", try p.string("sha256")), size: try p.required("size", try p.int("size")),
                                                  width: try p.required("width", try p.int("width")))
            } catch {
                throw .invalid("packed." + (error.parameter ?? ""), error.message)
            }
        }
        var files: [TransferFiles.Patch] = []
        for (k, element) in patches.enumerated() {
            do throws(CatalogError) {
                let p = try StoredObject(e.tape, element)
                files.append(try TransferFiles.Patch(from: try p.required("from", try p.string("from")), sha256: try p.required("sha256", try p.string("sha256")),
                                                     size: try p.required("size", try p.int("size"))))
            } catch {
                throw .invalid("patches[\(k)]." + (error.parameter ?? ""), error.message)
            }
        }
        return TransferFiles(packed: packed, patches: files)
    }

    /// A stored guard, runtime fields included, in the catalog's own time format.
    private func guardPlan(_ e: StoredObject) throws(CatalogError) -> GuardPlan? {
        guard let document: GuardPlan.Document = try decode("guard", in: e) else { return nil }
        do {
            return try GuardPlan(stored: document, parseTime: { Timestamp(rfc3339: $0)?.millisecondsSinceEpoch })
        } catch {
            throw .invalid(error.field, error.message)
        }
    }

    private func decoded<T: Decodable>(_ key: String, in e: StoredObject, memo: inout [ArraySlice<UInt8>: T]) throws(CatalogError) -> T? {
        guard let n = e.node(key) else { return nil }
        if let known = memo[bytes[e.tape.range(n)]] { return known }
        let value: T? = try decode(key, in: e)
        memo[bytes[e.tape.range(n)]] = value
        return value
    }

    private func decode<T: Decodable>(_ key: String, in e: StoredObject) throws(CatalogError) -> T? {
        guard let n = e.node(key) else { return nil }
        do {
            return try JSONDecoder().decode(T.self, from: Data(bytes[e.tape.range(n)]))
        } catch let error as InvalidInput {
            throw .invalid(error.parameter, error.message)
        } catch {
            throw .invalid(key, "\(error)")
        }
    }
}

// models/latest_model_details.json (SPEC §2)
extension Catalog {
    /// The active releases of the default channel, in catalog order: all the derived file reads.
    private var stableReleases: [Release] {
        releases.filter { $0.isSelectable && $0.channel == Release.defaultChannel }
    }

    /// The versions at which the no-client-id stable answer can change: every distinct
    /// `sdk_min` and `sdk_max` of the active, stable, 100 % releases, ascending.
    private static func detailsKeys(of stable: [Release]) -> [SDKVersion] {
        var keys = Set<SDKVersion>()
        for r in stable where r.rolloutPercent == 100 {
            keys.insert(r.sdkMinVersion)
            if let m = r.sdkMaxVersion { keys.insert(m) }
        }
        return keys.sorted()
    }

    /// `{"<M.m.p>": <§4.1 document> | null, …}`, keys ascending; each value is exactly what
    /// selection gives a stable client at that version without client_id. Selection reads the
    /// stable channel's releases only, so the cost follows that channel, not the catalog.
    public func latestDetailsJSON(publicBaseURL: String) -> [UInt8] {
        let stable = stableReleases
        var w = JSONWriter(capacity: 64 + stable.count * 360)
        w.beginObject()
        for v in Self.detailsKeys(of: stable) {
            w.key(v.description)
            if let r = ReleaseSelector.select(from: stable, sdk: v, channel: Release.defaultChannel, clientID: nil).release {
                r.writeDocument(to: &w, publicBaseURL: publicBaseURL)
            } else {
                w.null()
            }
        }
        w.endObject()
        return w.line()
    }
}

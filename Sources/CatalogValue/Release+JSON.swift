import Guardrails
import JSONSupport

extension Release {
    /// `public_base_url` + `/models/` + file; a trailing `/` on the base is not doubled.
    public func url(publicBaseURL: String) -> String {
        Release.url(publicBaseURL: publicBaseURL, file: file)
    }

    package static func url(publicBaseURL: String, file: String) -> String {
        var base = publicBaseURL
        while base.hasSuffix("/") { base.removeLast() }
        return base + "/models/" + file
    }

    /// The SPEC §4.1 update-check document (its shape is ReleaseSelection's `ReleaseDocument`,
    /// which the client decodes). With a variant, only `url`, `sha256`, `size`, the file's other
    /// forms and `disk_bytes` are the variant's, and `variant` names it (SPEC §3.1).
    public func document(publicBaseURL: String, variant: Variant? = nil) -> ReleaseDocument {
        let file = variant?.file ?? file
        // A variant answers with its own chunk list and derived files or none, never the release's.
        let chunks = variant != nil ? variant?.chunks : chunks
        let transfer = variant != nil ? variant?.transfer : transfer
        return ReleaseDocument(
            url: Release.url(publicBaseURL: publicBaseURL, file: file), id: id, sha256: variant?.sha256 ?? sha256,
            size: variant?.size ?? size, sdkMin: sdkMin, sdkMax: sdkMax, channel: channel, label: label,
            publishedAt: publishedAt.rfc3339, variant: variant?.name,
            chunks: chunks?.reference(publicBaseURL: publicBaseURL, file: file),
            packed: transfer?.packedReference(publicBaseURL: publicBaseURL, file: file),
            patches: transfer?.patchReferences(publicBaseURL: publicBaseURL, file: file),
            base: base, displayName: info.displayName, license: info.license, minRAMMB: info.minRAMMB,
            diskBytes: diskBytes(variant: variant))
    }

    /// The document's bytes: `/latest`'s and `/check`'s answers.
    public func documentJSON(publicBaseURL: String, variant: Variant? = nil) -> [UInt8] {
        document(publicBaseURL: publicBaseURL, variant: variant).json
    }

    package func writeDocument(to w: inout JSONWriter, publicBaseURL: String, variant: Variant? = nil) {
        document(publicBaseURL: publicBaseURL, variant: variant).write(to: &w)
    }

    /// A release entry of a rules snapshot (SPEC §9.2): the §4.1 document's fields plus `seq`,
    /// `rollout_percent` and the live variants in listed order — nothing else (no guard, no
    /// operator data). The shape is `RulesSnapshot.Entry`'s, which the client decodes.
    package func writeRulesEntry(to w: inout JSONWriter, publicBaseURL: String) {
        let live = variants.filter(\.isLive).map { v in
            RulesSnapshot.Variant(
                name: v.name, url: Release.url(publicBaseURL: publicBaseURL, file: v.file), sha256: v.sha256, size: v.size,
                requires: v.requires, diskBytes: diskBytes(variant: v),
                chunks: v.chunks?.reference(publicBaseURL: publicBaseURL, file: v.file),
                packed: v.transfer?.packedReference(publicBaseURL: publicBaseURL, file: v.file),
                patches: v.transfer?.patchReferences(publicBaseURL: publicBaseURL, file: v.file))
        }
        RulesSnapshot.Entry.write(document: document(publicBaseURL: publicBaseURL), seq: seq, rolloutPercent: rolloutPercent,
                                  variants: live, to: &w)
    }

    /// `base`, `display_name`, `license`, `min_ram_mb` as stored (SPEC §3.2): the same in the
    /// catalog entry and in every document that names the release.
    private func writePreDownloadFields(to w: inout JSONWriter) {
        ReleaseDocument.writePreDownloadFields(base: base, displayName: info.displayName, license: info.license, minRAMMB: info.minRAMMB, to: &w)
    }

    /// Every field (the catalog entry), with `url` first when a base URL is known: the form of
    /// `GET /admin/models` and of `modelctl … --json`. Unset optional fields are absent.
    /// `catalogVersion`, when given, is appended as `catalog_version` (SPEC §12): the catalog the
    /// answer was read from or the change was made in.
    public func adminJSON(publicBaseURL: String?, catalogVersion: Int64? = nil) -> [UInt8] {
        var w = JSONWriter(capacity: 512)
        writeEntry(to: &w, publicBaseURL: publicBaseURL, catalogVersion: catalogVersion)
        return w.bytes
    }

    package func writeEntry(to w: inout JSONWriter, publicBaseURL: String?, catalogVersion: Int64? = nil) {
        if publicBaseURL == nil, catalogVersion == nil, let entry = storedEntry {
            w.raw(entry)
            return
        }
        w.beginObject()
        if let publicBaseURL { w.field("url", url(publicBaseURL: publicBaseURL)) }
        w.field("id", id)
        w.field("seq", seq)
        w.field("file", file)
        w.field("ext", ext)
        w.field("sha256", sha256)
        w.field("size", size)
        if let unpackedSize { w.field("unpacked_size", unpackedSize) }   // absent: older catalogs stay byte-identical
        if let chunks {   // absent when none: catalogs from before SPEC §14 stay byte-identical
            w.key("chunks")
            chunks.write(to: &w, publicBaseURL: publicBaseURL, file: file)
        }
        transfer?.writeFields(to: &w, publicBaseURL: publicBaseURL, file: file)
        w.field("sdk_min", sdkMin)
        if let sdkMax { w.field("sdk_max", sdkMax) }
        w.field("channel", channel)
        w.field("rollout_percent", rolloutPercent)
        w.field("state", state.rawValue)
        w.field("label", label)
        w.field("published_at", publishedAt.rfc3339)
        if let retiredAt { w.field("retired_at", retiredAt.rfc3339) }
        if let fileDeletedAt { w.field("file_deleted_at", fileDeletedAt.rfc3339) }
        w.field("content_type", contentType)
        writePreDownloadFields(to: &w)
        if let exposedAt { w.field("exposed_at", exposedAt.rfc3339) }
        if !variants.isEmpty {   // absent when none: catalogs without variants stay byte-identical
            w.key("variants")
            w.beginArray()
            for v in variants { v.write(to: &w, publicBaseURL: publicBaseURL) }
            w.endArray()
        }
        if let guardPlan {
            w.key("guard")
            w.raw(guardPlan.json(formatTime: { Timestamp(millisecondsSinceEpoch: $0).rfc3339 }))
        }
        if let catalogVersion { w.field("catalog_version", catalogVersion) }
        w.endObject()
    }
}

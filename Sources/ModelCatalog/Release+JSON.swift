import Guardrails
import JSONSupport

extension Release {
    /// `public_base_url` + `/models/` + file; a trailing `/` on the base is not doubled.
    public func url(publicBaseURL: String) -> String {
        Release.url(publicBaseURL: publicBaseURL, file: file)
    }

    static func url(publicBaseURL: String, file: String) -> String {
        var base = publicBaseURL
        while base.hasSuffix("/") { base.removeLast() }
        return base + "/models/" + file
    }

    /// The SPEC §4.1 update-check document, keys in the specified order. With a variant, only
    /// `url`, `sha256` and `size` are the variant's and `variant` names it (SPEC §3.1).
    public func documentJSON(publicBaseURL: String, variant: Variant? = nil) -> [UInt8] {
        var w = JSONWriter(capacity: 384)
        writeDocument(to: &w, publicBaseURL: publicBaseURL, variant: variant)
        return w.bytes
    }

    func writeDocument(to w: inout JSONWriter, publicBaseURL: String, variant: Variant? = nil) {
        w.beginObject()
        writeDocumentFields(to: &w, publicBaseURL: publicBaseURL, variant: variant)
        w.endObject()
    }

    /// A release entry of a rules snapshot (SPEC §9.2): the §4.1 document's fields plus `seq`,
    /// `rollout_percent` and the live variants in listed order — nothing else (no guard, no
    /// operator data).
    func writeRulesEntry(to w: inout JSONWriter, publicBaseURL: String) {
        w.beginObject()
        writeDocumentFields(to: &w, publicBaseURL: publicBaseURL, variant: nil)
        w.field("seq", seq)
        w.field("rollout_percent", rolloutPercent)
        w.key("variants")
        w.beginArray()
        for v in variants where v.isLive {
            w.beginObject()
            w.field("name", v.name)
            w.field("url", Release.url(publicBaseURL: publicBaseURL, file: v.file))
            w.field("sha256", v.sha256)
            w.field("size", v.size)
            v.transfer?.writeAnswerFields(to: &w, publicBaseURL: publicBaseURL, file: v.file)
            w.key("requires")
            v.requires.write(to: &w)
            w.endObject()
        }
        w.endArray()
        w.endObject()
    }

    private func writeDocumentFields(to w: inout JSONWriter, publicBaseURL: String, variant: Variant?) {
        w.field("url", Release.url(publicBaseURL: publicBaseURL, file: variant?.file ?? file))
        w.field("id", id)
        w.field("sha256", variant?.sha256 ?? sha256)
        w.field("size", variant?.size ?? size)
        // A variant answers with its own list or none, never the release's.
        if let chunks = variant != nil ? variant?.chunks : chunks {
            w.key("chunks")
            chunks.write(to: &w, publicBaseURL: publicBaseURL, file: variant?.file ?? file)
        }
        // The same rule for packs and patches (SPEC §16).
        let transfer = variant != nil ? variant?.transfer : transfer
        transfer?.writeAnswerFields(to: &w, publicBaseURL: publicBaseURL, file: variant?.file ?? file)
        w.field("sdk_min", sdkMin)
        if let sdkMax { w.field("sdk_max", sdkMax) }
        w.field("channel", channel)
        w.field("label", label)
        w.field("published_at", publishedAt.rfc3339)
        if let variant { w.field("variant", variant.name) }
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

    func writeEntry(to w: inout JSONWriter, publicBaseURL: String?, catalogVersion: Int64? = nil) {
        w.beginObject()
        if let publicBaseURL { w.field("url", url(publicBaseURL: publicBaseURL)) }
        w.field("id", id)
        w.field("seq", seq)
        w.field("file", file)
        w.field("ext", ext)
        w.field("sha256", sha256)
        w.field("size", size)
        if let chunks {   // absent when none: catalogs from before SPEC §14 stay byte-identical
            w.key("chunks")
            chunks.write(to: &w, publicBaseURL: publicBaseURL, file: file)
        }
        transfer?.writeCatalogFields(to: &w, publicBaseURL: publicBaseURL, file: file)
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

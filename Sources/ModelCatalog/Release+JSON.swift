extension Release {
    /// `public_base_url` + `/models/` + file; a trailing `/` on the base is not doubled.
    public func url(publicBaseURL: String) -> String {
        var base = publicBaseURL
        while base.hasSuffix("/") { base.removeLast() }
        return base + "/models/" + file
    }

    /// The SPEC §4.1 update-check document, keys in the specified order.
    public func documentJSON(publicBaseURL: String) -> [UInt8] {
        var w = JSONWriter(capacity: 384)
        writeDocument(to: &w, publicBaseURL: publicBaseURL)
        return w.bytes
    }

    func writeDocument(to w: inout JSONWriter, publicBaseURL: String) {
        w.beginObject()
        w.field("url", url(publicBaseURL: publicBaseURL))
        w.field("id", id)
        w.field("sha256", sha256)
        w.field("size", size)
        w.field("sdk_min", sdkMin)
        if let sdkMax { w.field("sdk_max", sdkMax) }
        w.field("channel", channel)
        w.field("label", label)
        w.field("published_at", publishedAt.rfc3339)
        w.endObject()
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
        if let catalogVersion { w.field("catalog_version", catalogVersion) }
        w.endObject()
    }
}

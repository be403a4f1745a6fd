import HTTPWire

// Origin isolation (SPEC §15.1): model bytes never run as the console's origin. The one home of
// the rule for which `content_type` a release may have; docs/decisions/origin-isolation.md.
extension Release {
    /// The publish rule (`POST /admin/models`, `modelctl publish`, with or without a server): a
    /// header-safe media type that browsers neither render as a document nor run as script.
    /// Catalog loads keep the looser `validateContentType`, so a catalog written before v5 still
    /// loads; its renderable types are served as `servedContentType` says.
    public static func validatePublishableContentType(_ type: String) throws(CatalogError) {
        try validateContentType(type)
        guard let media = MediaType(contentType: type) else {
            throw .invalid("content_type", "must be one media type, type/subtype[; parameters], like application/octet-stream")
        }
        if media.isRenderedByBrowsers {
            throw .invalid("content_type", "\(media) is rendered or run by browsers; model files may not be (SPEC §15.1)")
        }
    }

    /// The Content-Type its file is sent with, by modeld and to a mirror bucket: the recorded
    /// one, or the byte-stream type for one that publishing refuses today (a catalog from before
    /// v5), so a browser downloads such a file instead of rendering it.
    public var servedContentType: String {
        MediaType(contentType: contentType).map { !$0.isRenderedByBrowsers } == true ? contentType : Release.byteStream
    }
}

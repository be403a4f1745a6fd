import Testing
@testable import ModelCatalog

/// SPEC §15.1 origin isolation: which `content_type` a release may be published with, and what
/// a catalog's older renderable type is served as. The rule's one home is
/// `Release.validatePublishableContentType`; docs/decisions/origin-isolation.md lists it.
@Suite struct ContentTypeTests {
    private func publish(contentType: String) throws(CatalogError) -> PublishRequest {
        try PublishRequest(parameters: ["sdk_min": "1.0", "ext": "bin", "content_type": contentType])
    }

    /// The message of the 400 `invalid_parameter` naming `content_type`, nil when published.
    private func refusal(_ type: String) -> String? {
        do {
            _ = try publish(contentType: type)
            return nil
        } catch {
            #expect(error.code == .invalidParameter && error.parameter == "content_type", "\(error)")
            return error.message
        }
    }

    @Test(arguments: [
        // SPEC §15.1's own list
        "text/html", "application/xhtml+xml", "image/svg+xml", "text/xml", "application/xml", "text/javascript",
        "application/javascript",
        // any text/* but text/plain
        "text/css", "text/xsl", "text/vtt", "text/x-anything",
        // spelling browsers read the same way
        "TEXT/HTML", "Text/Html; charset=utf-8", " text/html", "text/html ;q=1", "image/SVG+XML",
        // XML documents, script, pages in parts, archives, documents with their own script
        "application/rss+xml", "application/atom+xml", "application/mathml+xml", "application/vnd.wap.xhtml+xml",
        "application/x-javascript", "application/ecmascript", "multipart/x-mixed-replace; boundary=x", "multipart/related",
        "message/rfc822", "application/pdf", "application/x-shockwave-flash",
    ])
    func renderableTypes_areRefusedAtPublish_400_SPEC15_1(type: String) {
        #expect(refusal(type)?.contains("is rendered or run by browsers") == true, "\(type)")
    }

    /// Values a browser would not read as one type: refused too, before any renderable check.
    @Test(arguments: ["application/octet-stream, text/html", "text/plain,text/html", "text /html", "/html", "text/", "text/h(t)ml"])
    func ambiguousTypes_areRefusedAtPublish_SPEC15_1(type: String) {
        #expect(refusal(type)?.hasPrefix("must be") == true, "\(type)")
    }

    @Test(arguments: [
        "application/octet-stream", "text/plain", "text/plain; charset=utf-8", "application/json", "application/zip",
        "application/x-protobuf", "application/vnd.coreml.model", "image/png", "application/wasm", "font/woff2",
    ])
    func bytesAndInertTypes_arePublished_SPEC15_1(type: String) throws {
        #expect(try publish(contentType: type).contentType == type)
    }

    /// Every default a file extension gives is publishable (a plain `modelctl publish FILE` never fails on it).
    @Test func extensionDefaults_arePublishable() throws {
        for ext in Array(Release.knownContentTypes.keys) + ["onnx"] {
            try Release.validatePublishableContentType(Release.defaultContentType(forExt: ext))
        }
    }

    /// A catalog written before v5 still loads with its type recorded; the file is served as bytes.
    @Test func olderRenderableType_loadsAndIsServedAsBytes_SPEC15_1() throws {
        let legacy = try Release(id: "00000000-0000-4000-8000-000000000001", seq: 1, ext: "bin", sha256: sha, size: 1,
                                 sdkMin: "1.0", publishedAt: t0, contentType: "text/html; charset=utf-8")
        #expect(legacy.contentType == "text/html; charset=utf-8")
        #expect(legacy.servedContentType == "application/octet-stream")
        let plain = try Release(id: "00000000-0000-4000-8000-000000000002", seq: 2, ext: "txt", sha256: sha, size: 1,
                                sdkMin: "1.0", publishedAt: t0)
        #expect(plain.servedContentType == "text/plain; charset=utf-8")
    }
}

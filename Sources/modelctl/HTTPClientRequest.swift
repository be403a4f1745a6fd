import ObjectStorage

/// One request to modeld: method, path under the server URL, query, body.
struct HTTPClientRequest {
    enum Body {
        case empty
        case json([UInt8])
        /// Streamed with chunked transfer coding, `Expect: 100-continue` and trailers.
        case stream(any UploadSource, contentType: String)
    }

    var method = "GET"
    var path: String
    /// Name/value pairs in order; nil values are left out.
    var query: [(String, String?)] = []
    var body = Body.empty
    var progress: ProgressBar?
    /// Response headers the caller wants back (most callers need only status and body).
    var responseHeaders: [String] = []

    /// Query values are RFC 3986-encoded: everything but unreserved characters is escaped (so
    /// `&`, `=`, `+` too) — the same encoding S3's canonical URLs use.
    var pathAndQuery: String {
        let pairs = query.compactMap { name, value in value.map { "\(name)=\(S3Encoding.uriEncode($0))" } }
        return pairs.isEmpty ? path : path + "?" + pairs.joined(separator: "&")
    }
}

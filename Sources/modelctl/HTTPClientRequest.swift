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

    var pathAndQuery: String {
        let pairs = query.compactMap { name, value in value.map { "\(name)=\(Self.percentEncoded($0))" } }
        return pairs.isEmpty ? path : path + "?" + pairs.joined(separator: "&")
    }

    /// RFC 3986 query value: everything but unreserved characters is escaped (so `&`, `=`, `+` too).
    static func percentEncoded(_ value: String) -> String {
        var out = ""
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                 UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out.unicodeScalars.append("%")
                out.unicodeScalars.append(hexDigits[Int(byte >> 4)])
                out.unicodeScalars.append(hexDigits[Int(byte & 0xF)])
            }
        }
        return out
    }

    private static let hexDigits = Array("0123456789ABCDEF".unicodeScalars)
}

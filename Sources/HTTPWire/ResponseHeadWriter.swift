/// Serialises a response head into a caller-owned, reused buffer: no intermediate Strings.
/// The engine decides Content-Length, Connection and Date; routes supply the other fields.
public enum ResponseHeadWriter {
    public enum ConnectionToken: Sendable {
        case none        // HTTP/1.1 keep-alive: the default needs no header
        case keepAlive   // HTTP/1.0 keep-alive must be announced
        case close
    }

    /// Appends the head (status line, fields, empty line) to `out`. `contentLength` nil omits the field
    /// (1xx, 204, 304).
    public static func write(status: Int, headers: HTTPFields, contentLength: Int64?, connection: ConnectionToken,
                             date: [UInt8], into out: inout [UInt8]) {
        out.append(contentsOf: statusLine(status))
        out.append(contentsOf: date)
        for field in headers {
            out.append(contentsOf: field.name.utf8)
            out.append(ASCII.colon); out.append(ASCII.sp)
            out.append(contentsOf: field.value.utf8)
            out.append(ASCII.cr); out.append(ASCII.lf)
        }
        if let contentLength {
            out.append(contentsOf: "Content-Length: ".utf8)
            appendDecimal(contentLength, to: &out)
            out.append(ASCII.cr); out.append(ASCII.lf)
        }
        switch connection {
        case .none: break
        case .keepAlive: out.append(contentsOf: "Connection: keep-alive\r\n".utf8)
        case .close: out.append(contentsOf: "Connection: close\r\n".utf8)
        }
        out.append(ASCII.cr); out.append(ASCII.lf)
    }

    public static let continueLine: [UInt8] = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)

    public static func appendDecimal(_ value: Int64, to out: inout [UInt8]) {
        if value == 0 { out.append(48); return }
        var v = value.magnitude, digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                                          UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var n = 0
        withUnsafeMutableBytes(of: &digits) { d in
            while v > 0 { d[n] = UInt8(48 + v % 10); v /= 10; n += 1 }
            if value < 0 { out.append(UInt8(ascii: "-")) }
            for k in stride(from: n - 1, through: 0, by: -1) { out.append(d[k]) }
        }
    }

    private static let statusLines: [[UInt8]] = (0..<600).map { code in
        Array("HTTP/1.1 \(code) \(reasonPhrase(code))\r\n".utf8)
    }

    static func statusLine(_ status: Int) -> [UInt8] {
        (100..<600).contains(status) ? statusLines[status] : Array("HTTP/1.1 \(status) \r\n".utf8)
    }

    public static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 100: "Continue"
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 204: "No Content"
        case 206: "Partial Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 304: "Not Modified"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 411: "Length Required"
        case 412: "Precondition Failed"
        case 413: "Content Too Large"
        case 414: "URI Too Long"
        case 415: "Unsupported Media Type"
        case 416: "Range Not Satisfiable"
        case 417: "Expectation Failed"
        case 422: "Unprocessable Content"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 503: "Service Unavailable"
        case 505: "HTTP Version Not Supported"
        case 507: "Insufficient Storage"
        default: ""
        }
    }

    /// 1xx, 204 and 304 responses carry neither Content-Length nor a body (RFC 9110 §8.6, §15.4.5).
    public static func hasNoBody(status: Int) -> Bool { status < 200 || status == 204 || status == 304 }
}

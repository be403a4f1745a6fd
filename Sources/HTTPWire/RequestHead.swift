/// How the request body is framed (RFC 9112 §6).
public enum RequestBodyKind: Sendable, Equatable {
    case none
    case length(Int64)
    case chunked
}

/// A parsed, validated request head. Strings are raw: the path is not percent-decoded or
/// normalised, so routes can refuse `..`, `//` or `%2e` exactly as sent (SPEC §4.3).
public struct RequestHead: Sendable, Equatable {
    public var method: String
    public var path: String
    public var query: String
    public var versionMinor: Int
    public var headers: HTTPFields
    public var body: RequestBodyKind
    public var expectsContinue: Bool
    public var keepAlive: Bool

    public init(method: String, path: String, query: String = "", versionMinor: Int = 1, headers: HTTPFields = [:],
                body: RequestBodyKind = .none, expectsContinue: Bool = false, keepAlive: Bool = true) {
        self.method = method
        self.path = path
        self.query = query
        self.versionMinor = versionMinor
        self.headers = headers
        self.body = body
        self.expectsContinue = expectsContinue
        self.keepAlive = keepAlive
    }

    /// The percent-decoded value of the first `name=` item of the query ('+' is a space), or nil.
    /// A malformed escape leaves the item undecodable: nil.
    public func queryItem(_ name: String) -> String? {
        for item in query.utf8.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let eq = item.firstIndex(of: UInt8(ascii: "=")) ?? item.endIndex
            guard let key = Self.percentDecoded(item[item.startIndex..<eq]), key == name else { continue }
            return eq == item.endIndex ? "" : Self.percentDecoded(item[item.index(after: eq)...])
        }
        return nil
    }

    static func percentDecoded(_ bytes: Substring.UTF8View.SubSequence) -> String? {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = bytes.startIndex
        while i < bytes.endIndex {
            let b = bytes[i]
            if b == UInt8(ascii: "%") {
                let h = bytes.index(after: i)
                guard h < bytes.endIndex, bytes.index(after: h) < bytes.endIndex,
                      let hi = hexValue(bytes[h]), let lo = hexValue(bytes[bytes.index(after: h)]) else { return nil }
                out.append(hi << 4 | lo)
                i = bytes.index(h, offsetBy: 2)
            } else {
                out.append(b == UInt8(ascii: "+") ? UInt8(ascii: " ") : b)
                i = bytes.index(after: i)
            }
        }
        return String(validating: out, as: UTF8.self)
    }

    static func hexValue(_ b: UInt8) -> UInt8? {
        switch b {
        case 48...57: b - 48
        case 65...70: b - 55
        case 97...102: b - 87
        default: nil
        }
    }
}

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

    static func hexValue(_ b: UInt8) -> UInt8? {
        switch b {
        case 48...57: b - 48
        case 65...70: b - 55
        case 97...102: b - 87
        default: nil
        }
    }
}

/// One S3 request, fully described before any I/O: method, canonical URL, the headers to sign
/// and send, and the body with its SHA-256 (always sent as `x-amz-content-sha256`).
public struct S3Request: Sendable, Equatable {
    public enum Body: Sendable, Equatable {
        case none
        case bytes([UInt8])
        /// `length` bytes of the file at `path` from `offset` (a whole object or one part).
        case file(path: String, offset: Int64, length: Int64)

        public var length: Int64 {
            switch self {
            case .none: 0
            case .bytes(let bytes): Int64(bytes.count)
            case .file(_, _, let length): length
            }
        }
    }

    public let method: String
    public let url: String
    /// Header fields in the order sent; libcurl 7.88 signs each one.
    public let headers: [(name: String, value: String)]
    public let body: Body
    /// A short name for messages and metrics (`PutObject`, `UploadPart`, …).
    public let operation: String

    public init(method: String, url: String, headers: [(name: String, value: String)], body: Body, operation: String) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.operation = operation
    }

    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    public static func == (lhs: S3Request, rhs: S3Request) -> Bool {
        lhs.method == rhs.method && lhs.url == rhs.url && lhs.body == rhs.body && lhs.operation == rhs.operation
            && lhs.headers.map { "\($0.name): \($0.value)" } == rhs.headers.map { "\($0.name): \($0.value)" }
    }
}

/// Why an object-storage operation failed, in words an operator can act on.
public enum S3Error: Error, Equatable, CustomStringConvertible {
    /// A bad endpoint, bucket, region or credentials source: the command line is at fault.
    case usage(String)
    /// The store answered with an error status (or a 200 whose body is an `<Error>`).
    case service(S3ServiceError)
    /// No usable HTTP answer: connection refused, reset, timeout, DNS.
    case transport(String)
    /// The store answered 2xx with a body we cannot use.
    case invalidResponse(String)
    /// A local file could not be read while uploading it.
    case local(String)

    public var description: String {
        switch self {
        case .usage(let text), .transport(let text), .local(let text): text
        case .invalidResponse(let text): "unexpected response: \(text)"
        case .service(let error): error.description
        }
    }

    /// The service error code (`NoSuchKey`, `PreconditionFailed`, …), nil for other failures.
    public var serviceCode: String? {
        if case .service(let error) = self { return error.code }
        return nil
    }

    public var status: Int? {
        if case .service(let error) = self { return error.status }
        return nil
    }
}

/// An S3 `<Error>` answer: status, `Code`, `Message`, `RequestId`, and what was asked.
public struct S3ServiceError: Equatable, Sendable, CustomStringConvertible {
    public let status: Int
    public let code: String
    public let message: String
    public let requestID: String?
    /// "METHOD URL" of the request that failed.
    public let request: String

    public init(status: Int, code: String, message: String, requestID: String?, request: String) {
        self.status = status
        self.code = code
        self.message = message
        self.requestID = requestID
        self.request = request
    }

    public var description: String {
        var text = "\(request): \(status) \(code)"
        if !message.isEmpty { text += ": \(message)" }
        if let hint = Self.hints[code] { text += " (\(hint))" }
        if let requestID { text += " [request id \(requestID)]" }
        return text
    }

    private static let hints = [
        "SignatureDoesNotMatch": "check the secret access key and --region",
        "InvalidAccessKeyId": "check the access key id",
        "AccessDenied": "check the key's permissions on the bucket",
        "NoSuchBucket": "check the bucket name, --endpoint and --addressing",
        "XAmzContentSHA256Mismatch": "the file changed while it was uploaded",
    ]
}

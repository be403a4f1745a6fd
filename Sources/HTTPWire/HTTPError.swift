/// A protocol-level or route-level failure as a value: the HTTP status plus the SPEC §10 error
/// code and a message a client developer can act on.
public struct HTTPError: Error, Sendable, Equatable {
    public var status: Int
    public var code: String
    public var message: String

    public init(_ status: Int, _ code: String, _ message: String) {
        self.status = status
        self.code = code
        self.message = message
    }

    public static func badRequest(_ message: String) -> HTTPError { HTTPError(400, "bad_request", message) }
    public static func bodyTooLarge(_ message: String) -> HTTPError { HTTPError(413, "body_too_large", message) }
    public static let uriTooLong = HTTPError(414, "uri_too_long", "request line longer than 8 KiB")
    public static func headersTooLarge(_ message: String) -> HTTPError { HTTPError(431, "headers_too_large", message) }
    public static func notImplemented(_ message: String) -> HTTPError { HTTPError(501, "not_implemented", message) }
    public static let versionNotSupported = HTTPError(505, "version_not_supported", "only HTTP/1.0 and HTTP/1.1 are supported")
}

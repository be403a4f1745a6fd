import Glibc
import HTTPWire

/// A file descriptor that `.file` body parts are sent from; closed when the last holder lets go
/// (the response may outlive the route that opened it while sendfile works through it).
public final class OpenFile: Sendable {
    public let fd: Int32

    /// Takes ownership of `fd`.
    public init(fd: Int32) { self.fd = fd }

    /// Opens `path` read-only, or nil with errno set.
    public static func open(path: String) -> OpenFile? {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        return fd < 0 ? nil : OpenFile(fd: fd)
    }

    deinit { close(fd) }
}

/// What a route answers. The engine adds Date, Content-Length (the exact 64-bit sum of the
/// parts) and Connection; HEAD and 1xx/204/304 go out without a body.
public struct Response: Sendable {
    public var status: Int
    public var headers: HTTPFields
    public var parts: [BodyPart]
    /// The file that `.file` parts refer to.
    public var file: OpenFile?
    /// Opaque to the engine; handed back in `ExchangeSummary.label` in place of `Exchange.label`
    /// (a route's label made more precise by the answer, e.g. with the model served).
    public var label: (any Sendable)?

    public init(status: Int = 200, headers: HTTPFields = [:], parts: [BodyPart] = [], file: OpenFile? = nil,
                label: (any Sendable)? = nil) {
        self.status = status
        self.headers = headers
        self.parts = parts
        self.file = file
        self.label = label
    }

    public init(status: Int = 200, headers: HTTPFields = [:], body: [UInt8], label: (any Sendable)? = nil) {
        self.init(status: status, headers: headers, parts: body.isEmpty ? [] : [.bytes(body)], label: label)
    }

    /// SPEC §10 error: {"error":code,"message":message}, application/json, Cache-Control: no-store.
    public static func error(_ status: Int, _ code: String, _ message: String) -> Response {
        Response(status: status, headers: ["Content-Type": ErrorBody.contentType, "Cache-Control": "no-store"],
                 body: ErrorBody.json(code: code, message: message))
    }

    public static func error(_ e: HTTPError) -> Response { error(e.status, e.code, e.message) }

    var contentLength: Int64 { parts.reduce(0) { $0 + $1.length } }
}

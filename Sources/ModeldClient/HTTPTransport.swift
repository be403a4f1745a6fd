import Foundation

/// One request, whatever transport sends it.
struct HTTPRequest: Sendable {
    var url: URL
    var method = "GET"
    var headers: [String: String] = [:]
    var body: Data?

    init(url: URL) { self.url = url }

    /// Case-insensitive header lookup.
    func header(_ name: String) -> String? { headers.caseInsensitiveValue(name) }
}

/// A response's status and header fields.
struct ResponseHead: Sendable {
    let status: Int
    let headers: [String: String]

    /// Case-insensitive header lookup.
    func header(_ name: String) -> String? { headers.caseInsensitiveValue(name) }
}

/// Receives one response as it streams in, on the transport's thread (one at a time).
/// Throwing from any method cancels the transfer and fails the request with that error.
protocol ResponseSink: AnyObject {
    func receive(_ head: ResponseHead) throws
    func receive(_ bytes: UnsafeRawBufferPointer) throws
    /// Called on the same thread after the head, at least about once a second while the body is
    /// silent (more often while it streams), so a download can make a stall's progress durable
    /// (SPEC §13.2) without a thread of its own racing its writes.
    func tick() throws
}

extension ResponseSink {
    func tick() throws {}
}

/// Sends requests and streams their responses into sinks: libcurl on Linux
/// (`CurlHTTPTransport`), URLSession elsewhere (`URLSessionTransport`).
protocol HTTPTransport: Sendable {
    /// Sends `request` and streams the response into `sink`. Task cancellation aborts the
    /// transfer with `CancellationError`; a failed transfer throws `ModeldClientError.network`.
    func stream(_ request: HTTPRequest, into sink: any ResponseSink) async throws
    /// Drops idle connections; requests after this fail.
    func invalidate()    /// nil when the transport paces the network to the sink (flow control). Otherwise it buffers
    /// what the sink has not taken yet, and a download asks it for at most this many bytes at once.
    var bufferWindow: Int64? { get }
}

extension HTTPTransport {
    var bufferWindow: Int64? { nil }

    /// Sends `request` and reads a small body whole (at most `limit` bytes).
    func send(_ request: HTTPRequest, limit: Int = 8 << 20) async throws -> HTTPAnswer {
        let collector = Collector(limit: limit)
        try await stream(request, into: collector)
        return collector.answer()
    }
}

/// A small response read whole (update checks, event uploads, static JSON).
struct HTTPAnswer: Sendable {
    let head: ResponseHead
    let body: [UInt8]

    var status: Int { head.status }
    func header(_ name: String) -> String? { head.header(name) }

    /// SPEC §10's `{"error":…,"message":…}` fields when the body carries them.
    var errorCode: String? { errorFields?["error"] as? String }
    var errorMessage: String { (errorFields?["message"] as? String) ?? "" }
    /// nil when the body is not SPEC §10's JSON (a proxy's HTML page): the status still says it.
    private var errorFields: [String: Any]? { try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] }

    func asError() -> ModeldClientError { .server(status: status, code: errorCode, message: errorMessage) }
}

/// Collects a small body, refusing more than `limit` bytes.
private final class Collector: ResponseSink {
    private let limit: Int
    private var head = ResponseHead(status: 0, headers: [:])
    private var body: [UInt8] = []

    init(limit: Int) { self.limit = limit }

    func receive(_ head: ResponseHead) throws { self.head = head }

    func receive(_ bytes: UnsafeRawBufferPointer) throws {
        guard body.count + bytes.count <= limit else { throw ModeldClientError.network("response body over \(limit) bytes") }
        body.append(contentsOf: bytes)
    }

    func answer() -> HTTPAnswer { HTTPAnswer(head: head, body: body) }
}

extension Dictionary where Key == String, Value == String {
    func caseInsensitiveValue(_ name: String) -> String? {
        first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}

/// Carries a non-Sendable sink to the one thread or queue that uses it while the request runs.
struct UnsafeSendableBox<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}

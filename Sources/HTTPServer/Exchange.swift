import CLinuxShims
import HTTPWire

/// One request/response exchange, handed to the route. Routes may keep it and complete it from
/// any thread; everything else about the connection stays on its loop.
// @unchecked: `connection`, `responded`, `label` and `bodyHandler` are touched only on the owning loop's
// thread; other threads reach the loop through its Mutex-guarded mailbox.
public final class Exchange: @unchecked Sendable {
    public let peer: String
    let loop: EventLoop
    let connection: Connection
    let method: String
    let path: String
    let isHEAD: Bool
    let keepAlive: Bool
    let versionMinor: Int
    let rangeRequested: Bool
    let startNanos: Int64
    var responded = false
    /// The route's label, handed back in `ExchangeSummary.label` when the response carries none
    /// (an answer completed later, a 413 the engine sends, a client that left). Set in `handle`.
    public var label: (any Sendable)?
    var bodyHandler: (@Sendable ([UInt8], HTTPFields) -> Void)?

    init(loop: EventLoop, connection: Connection, head: RequestHead, startNanos: Int64) {
        self.loop = loop
        self.connection = connection
        self.peer = connection.peer
        self.method = head.method
        self.path = head.path
        self.isHEAD = head.method == "HEAD"
        self.keepAlive = head.keepAlive
        self.versionMinor = head.versionMinor
        self.rangeRequested = head.headers.contains("Range")
        self.startNanos = startNanos
    }

    /// Sends the response, from any thread. Only the first call counts; calls after the
    /// connection died are dropped.
    public func complete(_ response: Response) { loop.post(.complete(self, response)) }

    /// For `.collectBody`: where the body and trailers go. Call inside `handle(_:_:)`.
    public func setBodyHandler(_ handler: @escaping @Sendable (_ body: [UInt8], _ trailers: HTTPFields) -> Void) {
        bodyHandler = handler
    }

    /// After a `BodySink` returned `.pause`: deliver the rest. Any thread.
    public func resumeBody() { loop.post(.resume(self)) }
}

import HTTPWire

/// The route layer as the engine sees it.
public protocol HTTPHandler: Sendable {
    /// Called on a loop thread once the head is parsed. Must not block.
    func handle(_ head: RequestHead, _ exchange: Exchange) -> HeadDecision
}

/// What to do with a request once its head is known.
public enum HeadDecision {
    /// Answer now. A request body, if any, is not read: the connection closes after a bounded drain.
    case respond(Response)
    /// The route calls `exchange.complete(_:)` later, from any thread.
    case deferred
    /// Buffer up to `limit` body bytes (more → 413 `body_too_large` and close), then call the
    /// handler given to `exchange.setBodyHandler(_:)`.
    case collectBody(limit: Int)
    /// Push body bytes to the sink on the loop thread, with backpressure.
    case streamBody(any BodySink)
}

public enum BodyFlow: Sendable {
    case more
    /// Stop delivering until `exchange.resumeBody()`; the socket is not read meanwhile.
    case pause
}

/// Receives a streamed request body. Loop-confined: every call arrives on the connection's loop
/// thread, so a sink needs no locks of its own.
public protocol BodySink: AnyObject {
    /// The bytes are valid only during the call.
    func bodyBytes(_ buffer: UnsafeRawBufferPointer) -> BodyFlow
    /// The whole body arrived; the route completes the exchange (possibly later).
    func bodyEnd(trailers: HTTPFields)
    /// The client left, timed out, or sent a malformed chunk; the exchange is over.
    func bodyAborted()
}

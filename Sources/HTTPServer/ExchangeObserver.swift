/// One finished exchange, for the access log and metrics.
public struct ExchangeSummary: Sendable {
    public var method: String
    public var path: String
    public var peer: String
    /// 0 when no response was sent (the client left or timed out first).
    public var status: Int
    /// Body bytes the kernel accepted (write/sendfile); less than `contentLength` if the client left.
    public var bytesSent: Int64
    /// Body bytes the response was to carry (0 for HEAD, 204, 304): complete when equal to `bytesSent`.
    public var contentLength: Int64
    public var rangeRequested: Bool
    /// CLOCK_MONOTONIC nanoseconds: head parsed, last byte accepted (or connection died).
    public var startNanos: Int64
    public var endNanos: Int64
    public var label: (any Sendable)?
}

public protocol ExchangeObserver: Sendable {
    /// Called on the loop thread; must be quick (hand heavy work to another thread).
    func exchangeFinished(_ summary: ExchangeSummary)
}

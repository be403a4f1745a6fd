import Synchronization

/// Receives a response while libcurl reads it, on the thread that performs the transfer: the
/// final response's head once (before its first body byte, or after the transfer when it has no
/// body), then the body in libcurl's buffers. libcurl's write callback is synchronous, so a sink
/// that writes to disk paces the socket reads (TCP flow control) instead of buffering in memory.
/// A throw aborts the transfer; the error is kept in ``CurlTransfer/sinkError``.
public protocol CurlResponseSink: AnyObject {
    /// Header names are lowercased, in arrival order.
    func receive(status: Int, headers: [(name: String, value: String)]) throws
    func receive(_ bytes: UnsafeRawBufferPointer) throws
    /// From libcurl's progress callback once the head is delivered: at least about once a
    /// second on a silent connection, often while bytes flow.
    func tick() throws
}

extension CurlResponseSink {
    public func tick() throws {}
}

/// Aborts a transfer in flight from any thread: libcurl's progress callback, which runs at least
/// once a second even on a silent connection, sees the flag and ends `perform` with
/// `CURLE_ABORTED_BY_CALLBACK`.
public final class CurlCancellation: Sendable {
    private let flag = Atomic<Bool>(false)

    public init() {}

    public func cancel() { flag.store(true, ordering: .relaxed) }
    public var isCancelled: Bool { flag.load(ordering: .relaxed) }
}

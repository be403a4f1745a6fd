#if os(Linux)
import CCurl
import CurlTransport
import Foundation

/// libcurl on Linux. Each request runs `curl_easy_perform` on a thread of its own (it blocks,
/// and the cooperative pool must not) and the sink is called from libcurl's write callback, so a
/// disk slower than the network slows the socket reads (TCP flow control) instead of growing
/// memory as FoundationNetworking's URLSession does. Idle handles are kept for the next request,
/// so an update check and its download share a connection.
final class CurlHTTPTransport: HTTPTransport {
    static let connectTimeoutSeconds = 30
    private static let maxIdleHandles = 4
    /// A transfer that receives nothing for this many seconds fails (URLSession's request timeout).
    private let idleTimeout: Int

    /// Idle handles; a handle moves between threads but is used by one at a time (libcurl
    /// allows that).
    private struct Pool: @unchecked Sendable {
        var handles: [CurlEasy] = []
        var closed = false
    }
    private let pool = Locked(Pool())

    init(idleTimeout: Int) { self.idleTimeout = idleTimeout }

    func invalidate() { pool.withLock { $0 = Pool(handles: [], closed: true) } }

    func stream(_ request: HTTPRequest, into sink: any ResponseSink) async throws {
        let cancellation = CurlCancellation()
        let box = UnsafeSendableBox(sink)
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                Thread {
                    do {
                        try self.perform(request, into: box.value, cancellation: cancellation)
                        continuation.resume()
                    } catch {
                        continuation.resume(throwing: error)
                    }
                }.start()
            }
        } onCancel: {
            cancellation.cancel()
        }
    }

    private func perform(_ request: HTTPRequest, into sink: any ResponseSink, cancellation: CurlCancellation) throws {
        let (closed, reused) = pool.withLock { pool in (pool.closed, pool.handles.popLast().map(UnsafeSendableBox.init)) }
        guard !closed else { throw ModeldClientError.network("transport closed") }
        let easy: CurlEasy
        if let reused { easy = reused.value } else {
            do { easy = try CurlEasy() } catch { throw ModeldClientError.network(error.description) }
        }
        defer { release(easy) }
        let transfer: CurlTransfer
        do {
            transfer = try CurlTransfer(responseLimit: 0, upload: nil, progress: nil, sink: SinkAdapter(sink),
                                        cancellation: cancellation, easy: easy)
        } catch { throw ModeldClientError.network(error.description) }
        configure(easy, for: request)
        let code = cancellation.isCancelled ? CURLE_ABORTED_BY_CALLBACK : transfer.perform()
        if let failure = transfer.sinkError { throw failure }
        guard code == CURLE_OK else {
            if cancellation.isCancelled { throw CancellationError() }
            throw ModeldClientError.network("\(request.method) \(request.url.absoluteString): \(easy.errorMessage(code))")
        }
    }

    /// Back to the pool with its connection, reset so no option or callback pointer of this
    /// request survives.
    private func release(_ easy: CurlEasy) {
        easy.reset()
        let handle = UnsafeSendableBox(easy)
        pool.withLock { pool in
            if !pool.closed, pool.handles.count < Self.maxIdleHandles { pool.handles.append(handle.value) }
        }
    }

    private func configure(_ easy: CurlEasy, for request: HTTPRequest) {
        easy.set(CURLOPT_URL, request.url.absoluteString)
        easy.set(CURLOPT_PROTOCOLS_STR, "http,https")
        easy.set(CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
        easy.set(CURLOPT_FOLLOWLOCATION, 1)  // as URLSession does: a CDN or bucket may redirect
        easy.set(CURLOPT_MAXREDIRS, 5)
        easy.set(CURLOPT_CONNECTTIMEOUT, Self.connectTimeoutSeconds)
        easy.set(CURLOPT_LOW_SPEED_LIMIT, 1)
        easy.set(CURLOPT_LOW_SPEED_TIME, idleTimeout)
        // Fewer, larger writes and hash updates per file than libcurl's 16 KiB default.
        easy.set(CURLOPT_BUFFERSIZE, 256 << 10)
        easy.set(CURLOPT_USERAGENT, "ModeldClient")
        // A request that names an encoding gets the bytes as sent (the download asks for
        // identity); otherwise libcurl offers what it decodes and hands over the decoded body.
        if request.header("Accept-Encoding") == nil { easy.set(CURLOPT_ACCEPT_ENCODING, "") }
        switch (request.method, request.body) {
        case ("GET", nil): break
        case ("HEAD", nil): easy.set(CURLOPT_NOBODY, 1)
        case (let method, nil): easy.set(CURLOPT_CUSTOMREQUEST, method)
        case (let method, let body?):
            if method != "POST" { easy.set(CURLOPT_CUSTOMREQUEST, method) }
            easy.set(CURLOPT_POSTFIELDSIZE_LARGE, offset: Int64(body.count))
            if body.isEmpty { easy.set(CURLOPT_COPYPOSTFIELDS, "") } else {
                body.withUnsafeBytes { easy.set(CURLOPT_COPYPOSTFIELDS, pointer: $0.baseAddress) }
            }
        }
        // "Expect:" off: no 100-continue round trip before an event batch.
        easy.setHeaders(request.headers.map { "\($0.key): \($0.value)" } + ["Expect:"])
    }
}

/// libcurl's lowercased header list, joined per name as URLSession does, for a `ResponseSink`.
private final class SinkAdapter: CurlResponseSink {
    private let sink: any ResponseSink

    init(_ sink: any ResponseSink) { self.sink = sink }

    func receive(status: Int, headers: [(name: String, value: String)]) throws {
        var fields: [String: String] = [:]
        for (name, value) in headers { fields[name] = fields[name].map { "\($0), \(value)" } ?? value }
        try sink.receive(ResponseHead(status: status, headers: fields))
    }

    func receive(_ bytes: UnsafeRawBufferPointer) throws { try sink.receive(bytes) }

    func tick() throws { try sink.tick() }
}
#endif

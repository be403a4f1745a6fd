import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization

/// Receives one response as it streams in; called on the transport's serial delegate queue.
/// Throwing from either method cancels the transfer and fails the request with that error.
protocol ResponseSink: AnyObject {
    func receive(_ response: HTTPURLResponse) throws
    func receive(_ data: Data) throws
}

/// A small response read whole (update checks, event uploads, static JSON).
struct HTTPAnswer: Sendable {
    let status: Int
    let headers: [String: String]
    let body: [UInt8]

    /// Case-insensitive header lookup.
    func header(_ name: String) -> String? {
        headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// SPEC §10's `{"error":…,"message":…}` fields when the body carries them.
    var errorCode: String? { errorFields?["error"] as? String }
    var errorMessage: String { (errorFields?["message"] as? String) ?? "" }
    private var errorFields: [String: Any]? { try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] }

    func asError() -> ModeldClientError { .server(status: status, code: errorCode, message: errorMessage) }
}

/// URLSession with a delegate, so file bytes go to disk as they arrive instead of into memory,
/// on Linux (FoundationNetworking) and Apple platforms alike. No URL cache: the client does
/// its own revalidation with the ETag it stored.
// @unchecked: the mutable state is behind Mutexes; OperationQueue is thread-safe.
final class HTTPTransport: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private struct Pending {
        let sink: any ResponseSink
        let continuation: CheckedContinuation<Void, any Error>
        var failure: (any Error)?
    }

    private let pending = Mutex<[Int: Pending]>([:])
    private let sessionBox = Mutex<URLSession?>(nil)
    private let queue: OperationQueue

    override init() {
        queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        super.init()
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.timeoutIntervalForRequest = 60
        configuration.httpCookieStorage = nil
        sessionBox.withLock { $0 = URLSession(configuration: configuration, delegate: self, delegateQueue: queue) }
    }

    func invalidate() { sessionBox.withLock { $0?.invalidateAndCancel() } }

    /// Sends `request` and streams the response into `sink`.
    func stream(_ request: URLRequest, into sink: any ResponseSink) async throws {
        guard let session = sessionBox.withLock({ $0 }) else { throw ModeldClientError.network("transport closed") }
        let task = session.dataTask(with: request)
        let box = UnsafeSendableBox(sink)
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                pending.withLock { $0[task.taskIdentifier] = Pending(sink: box.value, continuation: continuation) }
                task.resume()
            }
        } onCancel: {
            task.cancel()
        }
    }

    /// Sends `request` and reads a small body whole (at most `limit` bytes).
    func send(_ request: URLRequest, limit: Int = 8 << 20) async throws -> HTTPAnswer {
        let collector = Collector(limit: limit)
        try await stream(request, into: collector)
        return collector.answer()
    }

    // MARK: URLSessionDataDelegate (serial queue)

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        deliver(dataTask) { sink in
            guard let http = response as? HTTPURLResponse else { throw ModeldClientError.network("not an HTTP response") }
            try sink.receive(http)
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        // FoundationNetworking queues chunks for this delegate without flow control (a suspended
        // task drops its transfer), so a network faster than the disk grows memory: see
        // docs/decisions/client.md.
        deliver(dataTask) { try $0.receive(data) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let entry = pending.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        if let failure = entry.failure {
            entry.continuation.resume(throwing: failure)
        } else if let error {
            entry.continuation.resume(throwing: ModeldClientError.network(error.localizedDescription))
        } else {
            entry.continuation.resume()
        }
    }

    /// Runs `body` with the task's sink unless it already failed; a throw cancels the task.
    private func deliver(_ task: URLSessionTask, _ body: (any ResponseSink) throws -> Void) {
        guard let entry = pending.withLock({ $0[task.taskIdentifier] }), entry.failure == nil else { return }
        do { try body(entry.sink) } catch {
            pending.withLock { $0[task.taskIdentifier]?.failure = error }
            task.cancel()
        }
    }
}

/// Collects a small body, refusing more than `limit` bytes.
private final class Collector: ResponseSink {
    private let limit: Int
    private var response: HTTPURLResponse?
    private var body: [UInt8] = []

    init(limit: Int) { self.limit = limit }

    func receive(_ response: HTTPURLResponse) throws { self.response = response }

    func receive(_ data: Data) throws {
        guard body.count + data.count <= limit else { throw ModeldClientError.network("response body over \(limit) bytes") }
        body.append(contentsOf: data)
    }

    func answer() -> HTTPAnswer {
        var headers: [String: String] = [:]
        for (key, value) in response?.allHeaderFields ?? [:] {
            if let key = key as? String, let value = value as? String { headers[key] = value }
        }
        return HTTPAnswer(status: response?.statusCode ?? 0, headers: headers, body: body)
    }
}

/// Carries a non-Sendable sink into the delegate queue, which is the only place that touches it.
private struct UnsafeSendableBox<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}

#if !os(Linux)
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization

/// URLSession with a delegate, so file bytes go to disk as they arrive instead of into memory.
/// No URL cache: the client does its own revalidation with the ETag it stored. Not used on
/// Linux, where FoundationNetworking queues chunks without flow control (CurlHTTPTransport).
// @unchecked: the mutable state is behind Mutexes; OperationQueue is thread-safe.
final class URLSessionTransport: NSObject, HTTPTransport, URLSessionDataDelegate, @unchecked Sendable {
    private struct Pending {
        let sink: any ResponseSink
        let continuation: CheckedContinuation<Void, any Error>
        var failure: (any Error)?
    }

    private let pending = Mutex<[Int: Pending]>([:])
    private let sessionBox = Mutex<URLSession?>(nil)
    private let queue: OperationQueue

    init(idleTimeout: Int) {
        queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        super.init()
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.timeoutIntervalForRequest = TimeInterval(idleTimeout)
        configuration.httpCookieStorage = nil
        sessionBox.withLock { $0 = URLSession(configuration: configuration, delegate: self, delegateQueue: queue) }
    }

    func invalidate() { sessionBox.withLock { $0?.invalidateAndCancel() } }

    func stream(_ request: HTTPRequest, into sink: any ResponseSink) async throws {
        guard let session = sessionBox.withLock({ $0 }) else { throw ModeldClientError.network("transport closed") }
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        urlRequest.httpBody = request.body
        let task = session.dataTask(with: urlRequest)
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

    // MARK: URLSessionDataDelegate (serial queue)

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        deliver(dataTask) { sink in
            guard let http = response as? HTTPURLResponse else { throw ModeldClientError.network("not an HTTP response") }
            var headers: [String: String] = [:]
            for (key, value) in http.allHeaderFields {
                if let key = key as? String, let value = value as? String { headers[key] = value }
            }
            try sink.receive(ResponseHead(status: http.statusCode, headers: headers))
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        deliver(dataTask) { sink in try data.withUnsafeBytes { try sink.receive($0) } }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let entry = pending.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        if let failure = entry.failure {
            entry.continuation.resume(throwing: failure)
        } else if let error = error as? URLError, error.code == .cancelled {
            entry.continuation.resume(throwing: CancellationError())
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
#endif

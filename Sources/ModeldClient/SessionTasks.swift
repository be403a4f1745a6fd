import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The data tasks of ``URLSessionTransport`` in flight, each with its sink and the continuation
/// its caller awaits. Delegate callbacks find a task's sink here; the first failure cancels the task.
final class SessionTasks: Sendable {
    private struct Pending {
        let task: UnsafeSendableBox<URLSessionTask>
        let sink: UnsafeSendableBox<any ResponseSink>
        let continuation: CheckedContinuation<Void, any Error>
        var failure: (any Error)?
        var hasHead = false
    }
    private let pending = Locked<[Int: Pending]>([:])

    /// Starts `task` and returns when it completes; cancelling the caller cancels the task.
    func run(_ task: URLSessionTask, into sink: any ResponseSink) async throws {
        let box = UnsafeSendableBox(sink)
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                pending.withLock { $0[task.taskIdentifier] = Pending(task: UnsafeSendableBox(task), sink: box, continuation: continuation) }
                task.resume()
            }
        } onCancel: {
            task.cancel()
        }
    }

    /// Runs `body` with the task's sink unless it already failed; a throw cancels the task.
    func deliver(_ task: URLSessionTask, _ body: (any ResponseSink) throws -> Void) {
        guard let entry = pending.withLock({ $0[task.taskIdentifier] }), entry.failure == nil else { return }
        do { try body(entry.sink.value) } catch {
            pending.withLock { $0[task.taskIdentifier]?.failure = error }
            task.cancel()
        }
    }

    /// Ticks every task's sink (call on the delegate queue, as the data callbacks are); a
    /// task that has its head only, as `CurlTransfer` does.
    func tick() {
        let tasks = pending.withLock { $0.values.filter(\.hasHead).map(\.task) }
        for task in tasks { deliver(task.value) { try $0.tick() } }
    }

    /// Hands the response head to the sink.
    func deliverHead(_ task: URLSessionTask, _ response: URLResponse?) {
        pending.withLock { $0[task.taskIdentifier]?.hasHead = true }
        deliver(task) { sink in
            guard let http = response as? HTTPURLResponse else { throw ModeldClientError.network("not an HTTP response") }
            var headers: [String: String] = [:]
            for (key, value) in http.allHeaderFields {
                if let key = key as? String, let value = value as? String { headers[key] = value }
            }
            try sink.receive(ResponseHead(status: http.statusCode, headers: headers))
        }
    }

    /// Ends the task's call: the sink's failure first, then the session's error.
    func complete(_ task: URLSessionTask, error: (any Error)?) {
        guard let entry = pending.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        if let failure = entry.failure {
            entry.continuation.resume(throwing: failure)
        } else if let error = error as? URLError, error.code == .cancelled {
            entry.continuation.resume(throwing: CancellationError())
        } else if let error = error as? URLError, error.isHeldBackByConditions {
            entry.continuation.resume(throwing: HeldBackByConditions())
        } else if let error {
            entry.continuation.resume(throwing: ModeldClientError.network(error.localizedDescription))
        } else {
            entry.continuation.resume()
        }
    }
}

extension URLRequest {
    /// The URLSession form of a transport request.
    init(_ request: HTTPRequest) {
        self.init(url: request.url)
        httpMethod = request.method
        for (name, value) in request.headers { setValue(value, forHTTPHeaderField: name) }
        httpBody = request.body
    }
}

extension URLError {
    /// The session's `allows…Access` switches kept the request off the only network there is.
    var isHeldBackByConditions: Bool {
        #if canImport(Darwin)
        networkUnavailableReason != nil  // iOS 13, macOS 10.15, watchOS 6: below every declared minimum
        #else
        false  // FoundationNetworking has no network kinds
        #endif
    }
}

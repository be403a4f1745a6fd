#if canImport(Darwin)
import Foundation

/// Model files through a background `URLSession` (SPEC §13.1, Apple platforms): the system
/// carries a large download on while the app is suspended and relaunches the app in the
/// background when it ends. Update checks and events keep the foreground transport.
///
/// Give one to ``ModeldConfiguration/backgroundDownloads`` and pass the app delegate's
/// `application(_:handleEventsForBackgroundURLSession:completionHandler:)` to
/// ``handleEvents(forBackgroundURLSession:completionHandler:)`` (docs/client.md has the sample).
///
/// The file arrives whole at the end (a background session has no data tasks), and is then
/// streamed through the same checks as any download: size (the sink refuses byte size + 1),
/// SHA-256, then install. A download that finishes after the app was terminated is fetched
/// again by the next update from the partial file's checkpoint (a range request), since the
/// verified path is the partial file. Not compiled on Linux.
public final class BackgroundDownloads: NSObject, HTTPTransport, URLSessionDownloadDelegate, @unchecked Sendable {
    public let identifier: String
    private let tasks = SessionTasks()
    private let finishEvents = Locked<UnsafeSendableBox<() -> Void>?>(nil)
    // Set once in init.
    private var session: URLSession!

    /// - Parameter identifier: the background session's identifier, unique to this app (and to
    ///   this cache, when the app has several clients).
    public init(identifier: String, conditions: DownloadConditions = DownloadConditions()) {
        self.identifier = identifier
        super.init()
        let configuration = URLSessionConfiguration.background(withIdentifier: identifier)
        configuration.sessionSendsLaunchEvents = true
        configuration.isDiscretionary = false
        configuration.allowsCellularAccess = conditions.allowsCellular
        configuration.allowsExpensiveNetworkAccess = conditions.allowsExpensive
        configuration.allowsConstrainedNetworkAccess = conditions.allowsConstrained
        configuration.urlCache = nil
        session = URLSession(configuration: configuration, delegate: self, delegateQueue: nil)
    }

    /// Call from `application(_:handleEventsForBackgroundURLSession:completionHandler:)`.
    /// Returns false (and leaves `completionHandler` to the caller) when `identifier` is another
    /// session's; otherwise calls it once the session has delivered its events.
    public func handleEvents(forBackgroundURLSession identifier: String, completionHandler: @escaping () -> Void) -> Bool {
        guard identifier == self.identifier else { return false }
        finishEvents.withLock { $0 = UnsafeSendableBox(completionHandler) }
        return true
    }

    func invalidate() { session.finishTasksAndInvalidate() }

    func stream(_ request: HTTPRequest, into sink: any ResponseSink) async throws {
        try await tasks.run(session.downloadTask(with: URLRequest(request)), into: sink)
    }

    // MARK: URLSessionDownloadDelegate

    public func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL) {
        // The system deletes `location` when this returns: hand the bytes over now.
        tasks.deliverHead(downloadTask, downloadTask.response)
        tasks.deliver(downloadTask) { sink in
            let file = try FileHandle(forReadingFrom: location)
            defer { try? file.close() }
            while let chunk = try file.read(upToCount: 1 << 20), !chunk.isEmpty {
                try chunk.withUnsafeBytes { try sink.receive($0) }
            }
        }
    }

    public func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        tasks.complete(task, error: error)
    }

    public func urlSessionDidFinishEvents(forBackgroundURLSession session: URLSession) {
        guard let handler = finishEvents.withLock({ handler in defer { handler = nil }; return handler }) else { return }
        DispatchQueue.main.async { handler.value() }
    }
}
#endif

#if canImport(Darwin)
import Foundation

/// Model files through a background `URLSession` (SPEC §13.2, Apple platforms): the system
/// carries a large download on while the app is suspended or not running, and relaunches the
/// app in the background when it ends. Only whole files go through it; checks, rules, events,
/// chunk lists and delta ranges keep the foreground transports.
///
/// Make one at launch, from the configuration it serves (its cache, and its conditions, which
/// the session applies), set it as ``ModeldConfiguration/backgroundDownloads``, and pass the app
/// delegate's `application(_:handleEventsForBackgroundURLSession:completionHandler:)` to
/// ``handleEvents(forBackgroundURLSession:completionHandler:)`` (docs/client.md has the sample).
///
/// This class only maps the session's callbacks onto ``BackgroundTaskBook``, the plain
/// bookkeeping that Linux tests drive; it is not compiled on Linux.
// @unchecked: `session` is set once in init; the rest is behind locks.
public final class BackgroundDownloads: NSObject, BackgroundSession, URLSessionDownloadDelegate, @unchecked Sendable {
    public let identifier: String
    package let book: BackgroundTaskBook
    private let finishEvents = Locked<UnsafeSendableBox<() -> Void>?>(nil)
    private let tasks = Locked<[Int: URLSessionDownloadTask]>([:])
    private var session: URLSession!

    /// - Parameter identifier: the background session's identifier, unique to this app (and to
    ///   this cache, when the app has several).
    public init(identifier: String, configuration: ModeldConfiguration) {
        self.identifier = identifier
        book = BackgroundTaskBook(cacheDirectory: configuration.cacheDirectory)
        super.init()
        let access = configuration.conditions.networkAccess(for: .modelFile)
        let settings = URLSessionConfiguration.background(withIdentifier: identifier)
        settings.sessionSendsLaunchEvents = true
        settings.isDiscretionary = false
        settings.allowsCellularAccess = access.cellular
        settings.allowsExpensiveNetworkAccess = access.expensive
        settings.allowsConstrainedNetworkAccess = access.constrained
        settings.urlCache = nil
        session = URLSession(configuration: settings, delegate: self, delegateQueue: nil)
    }

    /// Call from `application(_:handleEventsForBackgroundURLSession:completionHandler:)`.
    /// Returns false (and leaves `completionHandler` to the caller) when `identifier` is another
    /// session's; otherwise calls it once the session has delivered its events.
    public func handleEvents(forBackgroundURLSession identifier: String, completionHandler: @escaping () -> Void) -> Bool {
        guard identifier == self.identifier else { return false }
        finishEvents.withLock { $0 = UnsafeSendableBox(completionHandler) }
        return true
    }

    // MARK: BackgroundSession

    package func unfinishedTasks() async -> [BackgroundTask] {
        await session.allTasks.compactMap { $0 as? URLSessionDownloadTask }
            .filter { $0.state == .running || $0.state == .suspended }
            .map(remember)
    }

    package func startDownload(_ url: URL, description: String, resumeData: Data?) -> BackgroundTask {
        var request = URLRequest(url: url)
        request.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
        let task = resumeData.map(session.downloadTask(withResumeData:)) ?? session.downloadTask(with: request)
        task.taskDescription = description
        defer { task.resume() }
        return remember(task)
    }

    package func cancel(_ task: BackgroundTask, keepingResumeData: Bool) {
        guard let download = tasks.withLock({ $0.removeValue(forKey: task.identifier) }) else { return }
        guard keepingResumeData else { return download.cancel() }
        download.cancel { [book] data in
            if let data { book.keepResumeData(task.description, data) }
        }
    }

    private func remember(_ task: URLSessionDownloadTask) -> BackgroundTask {
        tasks.withLock { $0[task.taskIdentifier] = task }
        return BackgroundTask(identifier: task.taskIdentifier, description: task.taskDescription)
    }

    // MARK: URLSessionDownloadDelegate

    public func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didWriteData bytesWritten: Int64,
                           totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64) {
        book.wrote(downloadTask.taskDescription, bytes: bytesWritten, totalBytes: totalBytesWritten)
    }

    public func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL) {
        let status = (downloadTask.response as? HTTPURLResponse)?.statusCode ?? 0
        book.finished(downloadTask.taskDescription, status: status, file: location)
    }

    public func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        tasks.withLock { _ = $0.removeValue(forKey: task.taskIdentifier) }
        let resumeData = (error as NSError?)?.userInfo[NSURLSessionDownloadTaskResumeData] as? Data
        let end: BackgroundTaskEnd
        if let error = error as? URLError, error.code == .cancelled {
            end = .cancelled(resumeData: resumeData)
        } else if let error = error as? URLError, error.isHeldBackByConditions {
            end = .heldBack(resumeData: resumeData)
        } else if let error {
            end = .failed(error.localizedDescription, resumeData: resumeData)
        } else {
            end = .finished
        }
        book.completed(task.taskDescription, end)
    }

    public func urlSessionDidFinishEvents(forBackgroundURLSession session: URLSession) {
        guard let handler = finishEvents.withLock({ handler in defer { handler = nil }; return handler }) else { return }
        DispatchQueue.main.async { handler.value() }
    }
}
#endif

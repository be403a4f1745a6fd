import ContentDigest
import Foundation

/// A background download session as the bookkeeping sees it: URLSession on Apple platforms
/// (``BackgroundDownloads``); in tests, a stand-in that replays the callbacks in the orders the
/// system delivers them. Its tasks' callbacks go to ``book``.
package protocol BackgroundSession: Sendable {
    var book: BackgroundTaskBook { get }
    /// The session's unfinished tasks, an earlier launch's included.
    func unfinishedTasks() async -> [BackgroundTask]
    /// Starts a download of the whole file at `url` (from `resumeData` when there is some).
    func startDownload(_ url: URL, description: String, resumeData: Data?) -> BackgroundTask
    /// Cancels `task`; when `keepingResumeData`, the data comes back through ``BackgroundTaskBook/completed(_:_:)``.
    func cancel(_ task: BackgroundTask, keepingResumeData: Bool)
}

/// One task of a background session.
package struct BackgroundTask: Sendable, Equatable {
    package let identifier: Int
    package let description: String?

    package init(identifier: Int, description: String?) {
        self.identifier = identifier
        self.description = description
    }
}

/// How a background task ended.
package enum BackgroundTaskEnd: Sendable {
    case finished
    case cancelled(resumeData: Data?)
    /// The configuration's conditions keep it off the only network there is.
    case heldBack(resumeData: Data?)
    case failed(String, resumeData: Data?)
    /// The server answered the download with this status, not the file.
    case refused(status: Int)
}

/// The task-to-release bookkeeping of background downloads (SPEC §13.2), plain code the Apple
/// shim only feeds: callbacks may arrive on any thread, for a task this launch started or an
/// earlier one did, before or after a channel asks for the file. The finished file is renamed
/// into the channel's `partial/` inside the callback (the system deletes it after), and checked
/// (size, SHA-256) when the update that wants it takes it: after a relaunch, that is the next
/// update after the usual checks.
package final class BackgroundTaskBook: Sendable {
    private struct Waiter {
        let continuation: CheckedContinuation<Void, any Error>
        let progress: ProgressBroadcaster?
        var fetched: Int64 = 0
    }
    private struct State {
        var waiters: [String: Waiter] = [:]
        /// Ends nobody waited for yet (a task adopted just as it completed).
        var unclaimed: [String: BackgroundTaskEnd] = [:]
        /// Bytes the session wrote for each waiter's task, handed back with the file.
        var fetched: [String: Int64] = [:]
        /// A finished task whose response was an error page, not the file: its status.
        var refusals: [String: Int] = [:]
    }
    private let cache: CacheDirectory
    private let state = Locked(State())

    package init(cacheDirectory: URL) { cache = CacheDirectory(root: cacheDirectory) }

    private func files(_ channel: String, _ release: String) -> BackgroundTaskFiles {
        BackgroundTaskFiles(partial: cache.store(channel).partial, release: release)
    }

    private static func key(_ channel: String, _ release: String) -> String { "\(channel)/\(release)" }

    // MARK: The session's callbacks

    /// `didWriteData`: progress of the update waiting for it, if any.
    package func wrote(_ description: String?, bytes: Int64, totalBytes: Int64) {
        guard let record = BackgroundTaskRecord(taskDescription: description) else { return }
        let waiter = state.withLock { state -> Waiter? in
            state.waiters[Self.key(record.channel, record.release)]?.fetched += bytes
            return state.waiters[Self.key(record.channel, record.release)]
        }
        waiter?.progress?.report(.downloading(bytes: min(totalBytes, record.size), total: record.size))
    }

    /// `didFinishDownloadingTo`: renames the file into the channel's cache before the system
    /// deletes it — unless the response (`status`) was not the file. A task that is not ours, or
    /// a channel gone meanwhile, leaves it to the system.
    package func finished(_ description: String?, status: Int, file location: URL) {
        guard let record = BackgroundTaskRecord(taskDescription: description),
              FileManager.default.fileExists(atPath: cache.store(record.channel).partial.path) else { return }
        // 206: the session resumed the transfer itself from its resume data.
        guard status == 200 || status == 206 else {
            state.withLock { $0.refusals[Self.key(record.channel, record.release)] = status }
            return
        }
        // A failed rename (another volume: never inside an app's container) only loses this
        // transfer; the completion finds no file and the next update downloads again.
        try? DiskIO.moveDurably(location, to: files(record.channel, record.release).download)
    }

    /// Resume data of a cancelled or failed task, kept with its record for the next attempt
    /// (without the record it is for a release nobody wants any more).
    package func keepResumeData(_ description: String?, _ data: Data) {
        guard let record = BackgroundTaskRecord(taskDescription: description) else { return }
        let files = files(record.channel, record.release)
        if FileManager.default.fileExists(atPath: files.record.path) { try? DiskIO.atomicWrite(data, to: files.resumeData) }  // lost: the next attempt starts over
    }

    /// `didCompleteWithError`: keeps resume data with the record and wakes the update waiting.
    package func completed(_ description: String?, _ end: BackgroundTaskEnd) {
        guard let record = BackgroundTaskRecord(taskDescription: description) else { return }
        switch end {
        case .cancelled(let data?), .heldBack(let data?), .failed(_, let data?): keepResumeData(description, data)
        default: break
        }
        let key = Self.key(record.channel, record.release)
        let (waiter, outcome) = state.withLock { state -> (Waiter?, BackgroundTaskEnd) in
            var outcome = end
            if case .finished = end, let status = state.refusals.removeValue(forKey: key) { outcome = .refused(status: status) }
            guard let waiter = state.waiters.removeValue(forKey: key) else {
                state.unclaimed[key] = outcome
                return (nil, outcome)
            }
            state.fetched[key] = waiter.fetched
            return (waiter, outcome)
        }
        if let waiter { Self.resume(waiter.continuation, after: outcome, of: record) }
    }

    private static func resume(_ continuation: CheckedContinuation<Void, any Error>, after end: BackgroundTaskEnd, of record: BackgroundTaskRecord) {
        switch end {
        case .finished: continuation.resume()
        case .cancelled: continuation.resume(throwing: CancellationError())
        case .heldBack: continuation.resume(throwing: HeldBackByConditions())
        case .failed(let reason, _): continuation.resume(throwing: ModeldClientError.network("background download of \(record.url): \(reason)"))
        case .refused(let status): continuation.resume(throwing: ModeldClientError.server(status: status, code: nil, message: "downloading \(record.url)"))
        }
    }

    // MARK: The update path

    /// The verified file of `release` and the bytes this launch saw transferred for it: a file
    /// that finished earlier (even in an earlier launch), else the session's task for it
    /// (adopted, or started from kept resume data), awaited. The channel's tasks for other
    /// releases are cancelled. Cancelling the caller cancels the task and keeps its resume data.
    func fetch(_ release: ReleaseDocument, channel: String, session: any BackgroundSession,
               progress: ProgressBroadcaster?) async throws -> (file: URL, bytesFetched: Int64) {
        let files = files(channel, release.id)
        let key = Self.key(channel, release.id)
        // An end that came without a waiter before this call belongs to no task it will adopt.
        state.withLock { _ = $0.unclaimed.removeValue(forKey: key) }
        if FileManager.default.fileExists(atPath: files.download.path) {
            progress?.report(.verifying)
            return (try verified(release, files), release.size)
        }
        let adopted = await keepOnly(release, channel: channel, session: session)
        let record = BackgroundTaskRecord(channel: channel, release: release)
        // Durable before the task exists, so a relaunch knows what a finished file is.
        try DiskIO.atomicWrite(Data(record.taskDescription.utf8), to: files.record)
        progress?.report(.downloading(bytes: 0, total: release.size))
        guard let url = URL(string: release.url) else { throw ModeldClientError.verification("bad url \(release.url)") }
        let started = Locked<BackgroundTask?>(adopted)
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let ended = state.withLock { state -> BackgroundTaskEnd? in
                    // The adopted task may have ended between the listing and now.
                    if adopted != nil, let end = state.unclaimed.removeValue(forKey: key) { return end }
                    state.waiters[key] = Waiter(continuation: continuation, progress: progress)
                    return nil
                }
                if let ended {
                    Self.resume(continuation, after: ended, of: record)
                } else if adopted == nil {
                    // One use: the task owns the transfer now, and hands back fresh data if it stops.
                    let resumeData = try? Data(contentsOf: files.resumeData)  // none kept: from the start
                    try? FileManager.default.removeItem(at: files.resumeData)  // a leftover would only be tried once more
                    let task = session.startDownload(url, description: record.taskDescription, resumeData: resumeData)
                    started.withLock { $0 = task }
                    // Cancelled before the task existed: the handler below found nothing to cancel.
                    if Task.isCancelled { session.cancel(task, keepingResumeData: true) }
                }
            }
        } onCancel: {
            if let task = started.withLock({ $0 }) { session.cancel(task, keepingResumeData: true) }
        }
        let fetched = state.withLock { $0.fetched.removeValue(forKey: key) } ?? 0
        progress?.report(.verifying)
        return (try verified(release, files), fetched)
    }

    /// Cancels the channel's tasks for anything but `release` (nil: every one) and forgets their
    /// records; returns the task already downloading `release`, if any.
    @discardableResult
    func keepOnly(_ release: ReleaseDocument?, channel: String, session: any BackgroundSession) async -> BackgroundTask? {
        var adopted: BackgroundTask?
        for task in await session.unfinishedTasks() {
            guard let record = BackgroundTaskRecord(taskDescription: task.description), record.channel == channel else { continue }
            if let release, adopted == nil, record.describes(release, channel: channel) {
                adopted = task
                continue
            }
            session.cancel(task, keepingResumeData: false)
            if record.release != release?.id { files(channel, record.release).removeAll() }
        }
        return adopted
    }

    /// Size and SHA-256 against the signed release; a mismatch deletes the file, its record and
    /// resume data (the next update starts over) and fails as a verification failure.
    private func verified(_ release: ReleaseDocument, _ files: BackgroundTaskFiles) throws -> URL {
        let path = files.download.path
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int64) ?? nil  // unreadable: no file
        guard let size else { throw ModeldClientError.network("the background download of \(release.url) left no file") }
        let digest: String
        do { digest = try SHA256Hex.of(path: path) } catch { throw ModeldClientError.io(error.description) }
        guard size == release.size, digest == release.sha256 else {
            files.removeAll()
            throw ModeldClientError.verification("the background download of release \(release.id) is \(size) bytes with SHA-256 \(digest); "
                + "the release says \(release.size) bytes, \(release.sha256)")
        }
        try? FileManager.default.removeItem(at: files.record)  // the verified file needs no record; a leftover goes with the partials
        try? FileManager.default.removeItem(at: files.resumeData)
        return files.download
    }
}

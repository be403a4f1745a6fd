import Foundation
import ModeldClient
import Testing

/// SPEC §13.2's background downloads, through `ModelChannel.update()` against a real modeld: the
/// task-to-release bookkeeping (`BackgroundTaskBook`) fed by a stand-in for the system's
/// background session that replays its callbacks in the orders iOS delivers them — the file
/// finishing while the app waits, or while it is not running (delivered at the relaunch), an
/// orphaned task adopted, cancel with resume data, a task for a release no longer wanted, and a
/// corrupt file. The URLSession shim itself (`BackgroundDownloads`) only maps callbacks onto the
/// same calls and is compiled on Apple platforms only (.github/workflows/apple.yml).
@Suite(.serialized) final class ClientBackgroundDownloadTests {
    let fx: ClientFixture
    let system = SystemSession()
    init() throws { fx = try ClientFixture() }

    /// One app launch: a channel whose whole files go through `session`.
    func launch(_ channel: String = "stable") throws -> (ModelChannel, AppSession) {
        system.relaunched()
        let session = AppSession(system: system, cache: fx.cache)
        var configuration = ModeldConfiguration(source: .server(URL(string: fx.proxy.url)!), sdkVersion: "2.3",
                                                cacheDirectory: fx.cache, channel: channel).allowingUnsigned()
        configuration.backgroundSession = session
        return (try ModelChannel(configuration), session)
    }

    func partialFiles(_ channel: String = "stable") -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: fx.cache.appendingPathComponent("channels/\(channel)/partial").path)) ?? []).sorted()
    }

    @Test func aFileFinishedWhileTheAppWaits_isRenamedIntoTheCache_verifiedAndInstalled_withProgress() async throws {
        let release = try fx.publish(size: 300_000)
        let (client, session) = try launch()
        let phases = Locked<[UpdatePhase]>([])
        async let updated = client.update { phase in phases.withLock { $0.append(phase) } }
        let task = try await system.nextStarted()
        #expect(task.url.path.hasSuffix(release.id + ".bin") && task.resumeData == nil)
        #expect(partialFiles().contains("\(release.id).background.json"))
        let location = try system.deliver(task, bytes: Data(contentsOf: release.file), to: session.book)
        let result = try await updated
        #expect(result.status == .updated && result.active?.id == release.id && result.method == .full)
        // Renamed, never copied: the system's file is the installed model (same inode).
        #expect(try inode(result.active!.path) == location.inode && !FileManager.default.fileExists(atPath: location.url.path))
        #expect(phases.withLock { $0 }.contains(.downloading(bytes: 300_000, total: 300_000)))
        #expect(fx.modelRequests(release.id).isEmpty, "the foreground transport fetched the file too")
        #expect(partialFiles().isEmpty)
    }

    @Test func aFileFinishedWhileTheAppWasNotRunning_isAdoptedAtTheNextLaunch_withoutANewTransfer() async throws {
        let release = try fx.publish(size: 200_000)
        var (client, _) = try launch()
        let pending = Task { [client] in try await client.update() }
        let task = try await system.nextStarted()
        system.appKilled()  // the process is gone; the system's task carries on
        pending.cancel()
        _ = await pending.result
        await client.close()

        // Relaunched in the background: the session delivers the finished file before any update.
        let relaunched = try launch()
        client = relaunched.0
        _ = try system.deliver(task, bytes: Data(contentsOf: release.file), to: relaunched.1.book)
        #expect(partialFiles().contains("\(release.id).download"))
        let result = try await client.update()
        #expect(result.status == .updated && result.active?.id == release.id)
        #expect(system.startedCount == 1, "the finished file was fetched again")
    }

    @Test func anOrphanedTask_isAdopted_andATaskForAReleaseNoLongerWanted_isCancelled_otherChannelsUntouched() async throws {
        let old = try fx.publish(size: 100_000)
        let other = try fx.publish(size: 50_000, channel: "faces")
        // Another channel's task of the same session (its own object adopts it, not this one).
        let facesTask = system.plant(for: other.id, channel: "faces", size: 50_000, sha256: other.sha256,
                                     url: fx.proxy.url + "/models/\(other.id).bin")
        var (client, _) = try launch()
        let first = Task { [client] in try await client.update() }
        let orphan = try await system.nextStarted()
        system.appKilled()
        first.cancel()
        _ = await first.result
        await client.close()

        // Relaunched while the task still runs: the same release is adopted, no second transfer.
        var session: AppSession
        (client, session) = try launch()
        let listings = system.listings
        let adopted = Task { [client] in try await client.update() }
        try await system.waitUntilListed(after: listings)
        _ = try system.deliver(orphan, bytes: Data(contentsOf: old.file), to: session.book)
        #expect(try await adopted.value.active?.id == old.id)
        #expect(system.startedCount == 1)

        // A newer release: an earlier launch's task for one in between is cancelled (no resume
        // data kept) and its record goes; the faces channel's task is not this channel's to touch.
        let between = try fx.publish(size: 60_000)
        let stale = system.plant(for: between.id, channel: "stable", size: 60_000, sha256: between.sha256, url: fx.proxy.url + "/models/\(between.id).bin")
        try Data(stale.utf8).write(to: fx.cache.appendingPathComponent("channels/stable/partial/\(between.id).background.json"))
        let newest = try fx.publish(size: 70_000)
        await client.close()
        (client, session) = try launch()
        let updated = Task { [client] in try await client.update() }
        let fresh = try await system.nextStarted()
        #expect(fresh.url.path.contains(newest.id))
        #expect(system.cancelled == [stale] && !partialFiles().contains("\(between.id).background.json"))
        _ = try system.deliver(fresh, bytes: Data(contentsOf: newest.file), to: session.book)
        #expect(try await updated.value.active?.id == newest.id)
        #expect(system.isUnfinished(facesTask) && !system.cancelled.contains(facesTask))
    }

    @Test func cancelling_keepsResumeData_thatTheNextAttemptUses() async throws {
        let release = try fx.publish(size: 120_000)
        let (client, session) = try launch()
        let first = Task { try await client.update() }
        let task = try await system.nextStarted()
        system.resumeDataOnCancel = Data("resume-after-40000".utf8)
        first.cancel()
        await #expect(throws: CancellationError.self) { try await first.value }
        #expect(partialFiles().contains("\(release.id).resume"))

        async let second = client.update()
        let resumed = try await system.nextStarted()
        #expect(resumed.resumeData == Data("resume-after-40000".utf8) && resumed.task != task.task)
        _ = try system.deliver(resumed, bytes: Data(contentsOf: release.file), to: session.book)
        #expect(try await second.active?.id == release.id)
    }

    @Test func aCorruptFile_failsVerification_isDeleted_andTheNextUpdateStartsOver() async throws {
        let release = try fx.publish(size: 80_000)
        let (client, session) = try launch()
        let first = Task { try await client.update() }
        let task = try await system.nextStarted()
        var corrupt = try Data(contentsOf: release.file)
        corrupt[40_000] ^= 0xff
        _ = try system.deliver(task, bytes: corrupt, to: session.book)
        await #expect { try await first.value } throws: { error in
            guard case ModeldClientError.verification(let reason) = error else { return false }
            return reason.contains(release.sha256)
        }
        #expect(partialFiles().isEmpty)

        // An error page instead of the file is the server's failure, not a file to verify.
        let second = Task { try await client.update(.userInitiated) }
        let refused = try await system.nextStarted()
        _ = try system.deliver(refused, bytes: Data("busy".utf8), status: 503, to: session.book)
        await #expect { try await second.value } throws: { error in
            guard case ModeldClientError.server(let status, _, _) = error else { return false }
            return status == 503
        }

        async let third = client.update(.userInitiated)
        let again = try await system.nextStarted()
        _ = try system.deliver(again, bytes: Data(contentsOf: release.file), to: session.book)
        #expect(try await third.active?.id == release.id)
    }

    @Test func chunkRanges_neverGoThroughTheBackgroundSession() async throws {
        var bytes = [UInt8](repeating: 0, count: 600_000)
        var state: UInt64 = 1
        for i in bytes.indices {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            bytes[i] = UInt8(truncatingIfNeeded: state >> 33)
        }
        let v1 = fx.scratch.appendingPathComponent("v1.bin"), v2 = fx.scratch.appendingPathComponent("v2.bin")
        try Data(bytes).write(to: v1)
        bytes.replaceSubrange(300_000..<300_100, with: [UInt8](repeating: 7, count: 100))
        try Data(bytes).write(to: v2)
        let first = try fx.publish(file: v1)
        let (client, session) = try launch()
        async let installed = client.update()
        let task = try await system.nextStarted()
        _ = try system.deliver(task, bytes: Data(contentsOf: v1), to: session.book)
        #expect(try await installed.active?.id == first.id)

        let second = try fx.publish(file: v2)
        let delta = try await client.update()
        #expect(delta.active?.id == second.id && delta.method == .delta)
        #expect(system.startedCount == 1 && !fx.modelRequests(second.id).isEmpty)
    }

    private func inode(_ url: URL) throws -> UInt64 {
        try #require(FileManager.default.attributesOfItem(atPath: url.path)[.systemFileNumber] as? UInt64)
    }
}

/// The system's side of a background session: its tasks outlive the app's launches.
final class SystemSession: Sendable {
    struct Started: Sendable {
        let task: BackgroundTask
        let url: URL
        let resumeData: Data?
    }
    private struct State {
        var nextIdentifier = 1
        var unfinished: [BackgroundTask] = []
        var started: [Started] = []
        var cancelled: [String] = []
        var appRunning = true
        var resumeDataOnCancel: Data?
        var listings = 0
    }
    private let state = Locked(State())
    private let starts: AsyncStream<Started>
    private let startsContinuation: AsyncStream<Started>.Continuation
    private let listed: AsyncStream<Void>
    private let listedContinuation: AsyncStream<Void>.Continuation

    init() {
        (starts, startsContinuation) = AsyncStream.makeStream()
        (listed, listedContinuation) = AsyncStream.makeStream()
    }

    var startedCount: Int { state.withLock { $0.started.count } }
    /// The descriptions of the tasks cancelled, in order.
    var cancelled: [String] { state.withLock { $0.cancelled } }
    var resumeDataOnCancel: Data? {
        get { state.withLock { $0.resumeDataOnCancel } }
        set { state.withLock { $0.resumeDataOnCancel = newValue } }
    }

    func isUnfinished(_ description: String) -> Bool { state.withLock { $0.unfinished.contains { $0.description == description } } }

    /// The next task an app launch starts (bounded: a test that starts none fails, not hangs).
    func nextStarted() async throws -> Started {
        try await first(of: starts, "no background task started within 30 s")
    }

    var listings: Int { state.withLock { $0.listings } }

    /// Returns once an app launch has listed the session's tasks more than `count` times in all.
    func waitUntilListed(after count: Int) async throws {
        _ = try await first(of: listed, "the session's tasks were not listed within 30 s") { [state] in state.withLock { $0.listings } > count }
    }

    private func first<T: Sendable>(of stream: AsyncStream<T>, _ failure: String,
                                    where condition: @escaping @Sendable () -> Bool = { true }) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { await stream.first { _ in condition() } }
            group.addTask { try await Task.sleep(for: .seconds(30)); return nil }  // the bound, not a synchronisation
            defer { group.cancelAll() }
            return try #require(try await group.next() ?? nil, Comment(rawValue: failure))
        }
    }

    /// The app's process ended: what it asks afterwards (its tasks' cancellation on the way
    /// out) never reaches the system.
    func appKilled() { state.withLock { $0.appRunning = false } }

    func relaunched() { state.withLock { $0.appRunning = true } }

    func unfinishedTasks() -> [BackgroundTask] {
        defer { listedContinuation.yield() }
        return state.withLock { state in
            state.listings += 1
            return state.unfinished
        }
    }

    func start(_ url: URL, description: String, resumeData: Data?) -> BackgroundTask {
        let started = state.withLock { state in
            let task = BackgroundTask(identifier: state.nextIdentifier, description: description)
            state.nextIdentifier += 1
            state.unfinished.append(task)
            let started = Started(task: task, url: url, resumeData: resumeData)
            state.started.append(started)
            return started
        }
        startsContinuation.yield(started)
        return started.task
    }

    /// A task an earlier launch started for `id`; returns its description.
    func plant(for id: String, channel: String, size: Int, sha256: String, url: String) -> String {
        let description = #"{"channel":"\#(channel)","release":"\#(id)","sha256":"\#(sha256)","size":\#(size),"url":"\#(url)"}"#
        state.withLock { state in
            state.unfinished.append(BackgroundTask(identifier: state.nextIdentifier, description: description))
            state.nextIdentifier += 1
        }
        return description
    }

    /// Cancels `task` and reports it to `book` as iOS does; after ``appKilled()`` the task runs
    /// on and only the dying launch's own bookkeeping hears of the end (its process is gone).
    func cancel(_ task: BackgroundTask, keepingResumeData: Bool, book: BackgroundTaskBook) {
        let data = state.withLock { state -> Data?? in
            guard state.appRunning, state.unfinished.contains(task) else { return nil }
            state.unfinished.removeAll { $0 == task }
            state.cancelled.append(task.description ?? "")
            return .some(keepingResumeData ? state.resumeDataOnCancel : nil)
        }
        book.completed(task.description, .cancelled(resumeData: data ?? nil))
    }

    /// The transfer of `started` ends with `bytes` in a temporary file of the system's, delivered
    /// as iOS does: progress, the finished file, then the completion. Returns that file and its inode.
    func deliver(_ started: Started, bytes: Data, status: Int = 200, to book: BackgroundTaskBook) throws -> (url: URL, inode: UInt64) {
        let location = FileManager.default.temporaryDirectory.appendingPathComponent("CFNetworkDownload_\(UUID().uuidString).tmp")
        try bytes.write(to: location)
        let inode = try #require(FileManager.default.attributesOfItem(atPath: location.path)[.systemFileNumber] as? UInt64)
        let description = started.task.description
        book.wrote(description, bytes: Int64(bytes.count), totalBytes: Int64(bytes.count))
        book.finished(description, status: status, file: location)
        try? FileManager.default.removeItem(at: location)  // what the system does when the callback returns
        state.withLock { $0.unfinished.removeAll { $0 == started.task } }
        book.completed(description, .finished)
        return (location, inode)
    }
}

/// One app launch's session object: its own bookkeeping, the system's tasks.
final class AppSession: BackgroundSession {
    let system: SystemSession
    let book: BackgroundTaskBook

    init(system: SystemSession, cache: URL) {
        self.system = system
        book = BackgroundTaskBook(cacheDirectory: cache)
    }

    func unfinishedTasks() async -> [BackgroundTask] { system.unfinishedTasks() }

    func startDownload(_ url: URL, description: String, resumeData: Data?) -> BackgroundTask {
        system.start(url, description: description, resumeData: resumeData)
    }

    func cancel(_ task: BackgroundTask, keepingResumeData: Bool) {
        system.cancel(task, keepingResumeData: keepingResumeData, book: book)
    }
}

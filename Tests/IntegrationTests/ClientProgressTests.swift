import Foundation
@testable import ModeldClient
import Synchronization
import Testing

/// Progress, cancellation, policies and download conditions of `ModelChannel` in this process
/// against the real modeld through the fault proxy (SPEC §13.1).
@Suite(.serialized) final class ClientProgressTests {
    let fx: ClientFixture
    init() throws { fx = try ClientFixture() }

    func makeClient(_ change: (inout ModeldConfiguration) -> Void = { _ in }) throws -> ModelChannel {
        var configuration = ModeldConfiguration(source: .server(URL(string: fx.proxy.url)!), sdkVersion: "2.3", cacheDirectory: fx.cache)
        configuration.allowUnsigned = true
        change(&configuration)
        return try ModelChannel(configuration)
    }

    func partialSize(_ id: String) -> Int {
        let path = fx.cache.appendingPathComponent("channels/stable/partial/\(id).part").path
        return ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
    }

    @Test func updatePhases_runInOrder_andNeverGoBack() async throws {
        let size = 12 << 20
        let published = try fx.publish(size: size)
        fx.proxy.add(.init(pathContains: "/models/", fault: .throttle(bytesPerSecond: 8 << 20), times: 1))
        let client = try makeClient()
        let phases = Mutex<[UpdatePhase]>([])
        let result = try await client.update { phase in phases.withLock { $0.append(phase) } }
        #expect(result.status == .updated && result.active?.id == published.id)
        let seen = phases.withLock { $0 }
        #expect(seen.map(\.name).reduce(into: [String]()) { if $0.last != $1 { $0.append($1) } }
                == ["checking", "downloading", "verifying", "preparing", "installed"], "\(seen)")
        for (before, after) in zip(seen, seen.dropFirst()) { #expect(after.advances(from: before), "\(before) → \(after)") }
        let downloads = seen.compactMap { if case .downloading(let bytes, let total) = $0 { (bytes, total) } else { nil } }
        #expect(downloads.count >= 3 && downloads.allSatisfy { $0.1 == Int64(size) })
        #expect(downloads.last?.0 == Int64(size))

        // The stream form ends after `installed` (here: up to date, nothing to download).
        var streamed: [String] = []
        for try await phase in client.updatePhases() { streamed.append(phase.name) }
        #expect(streamed == ["checking", "installed"])
    }

    /// A delta update (SPEC §14) reports `downloading` too: bytes fetched of the bytes its plan
    /// fetches, in order and never backwards, then `verifying` of the built file.
    @Test func deltaUpdatePhases_reportTheBytesFetched_ofTheBytesToFetch() async throws {
        let old = DeltaUpdateTests.bytes(12 << 20, seed: 31)
        let file = fx.scratch.appendingPathComponent("old.bin")
        try old.write(to: file)
        let first = try fx.publish(file: file)
        let client = try makeClient()
        #expect(try await client.update().active?.id == first.id)

        var new = old
        new.replaceSubrange(4 << 20..<7 << 20, with: DeltaUpdateTests.bytes(3 << 20, seed: 32))   // 3 MiB of 12 changed
        try new.write(to: file)
        let second = try fx.publish(file: file)
        fx.proxy.add(.init(pathContains: "/models/\(second.id).bin", fault: .throttle(bytesPerSecond: 16 << 20), times: 4))
        let phases = Mutex<[UpdatePhase]>([])
        let result = try await client.update { phase in phases.withLock { $0.append(phase) } }
        #expect(result.status == .updated && result.active?.id == second.id && result.method == .delta)
        let seen = phases.withLock { $0 }
        #expect(seen.map(\.name).reduce(into: [String]()) { if $0.last != $1 { $0.append($1) } }
                == ["checking", "downloading", "verifying", "preparing", "installed"], "\(seen)")
        for (before, after) in zip(seen, seen.dropFirst()) { #expect(after.advances(from: before), "\(before) → \(after)") }
        let downloads = seen.compactMap { if case .downloading(let bytes, let total) = $0 { (bytes, total) } else { nil } }
        let total = try #require(downloads.first?.1)
        #expect(downloads.count >= 3 && downloads.allSatisfy { $0.1 == total }, "\(downloads)")
        #expect(total >= 3 << 20 && total < 4 << 20, "to fetch: \(total)")   // the changed chunks, not the file
        #expect(downloads.last?.0 == total)
        #expect(Int64(fx.proxy.relayedBytes("/models/\(second.id).bin")) == total)
        #expect(try SHA256Sum.of(try #require(result.active).path) == second.sha256)
    }

    @Test func cancellingTheCaller_stopsWithinOneSecond_keepsThePartial_andTheNextUpdateResumesIt() async throws {
        let size = 16 << 20
        let published = try fx.publish(size: size)
        fx.proxy.add(.init(pathContains: "/models/", fault: .throttle(bytesPerSecond: 2 << 20), times: 1))
        let client = try makeClient()
        let last = Mutex<UpdatePhase?>(nil)
        let lastBytesAt = Mutex(Date())
        let task = Task {
            try await client.update { phase in
                last.withLock { $0 = phase }
                if case .downloading = phase { lastBytesAt.withLock { $0 = Date() } }
            }
        }
        try #require(await ClientTransportTests.eventually(within: 20) { self.partialSize(published.id) >= 5 << 20 }, "no 5 MiB within 20 s")
        let cancelledAt = Date()
        task.cancel()
        let outcome = await task.result
        // The transfer stops within a second (no byte reaches the file after that); the call
        // returns once that is checkpointed (an fdatasync: slower on a loaded disk).
        #expect(lastBytesAt.withLock { $0 }.timeIntervalSince(cancelledAt) < 1)
        #expect(Date().timeIntervalSince(cancelledAt) < 5)
        #expect(throws: CancellationError.self) { try outcome.get() }
        #expect(last.withLock { $0 } == .failed("cancelled"))
        let kept = partialSize(published.id)
        #expect(kept >= 5 << 20 && kept < size)
        #expect(await client.activeModel() == nil)

        let resumed = try await client.update()
        #expect(resumed.status == .updated && resumed.active?.id == published.id)
        // Resumed at what the cancelled transfer kept; only the rest crosses the network.
        #expect(fx.modelRequests(published.id).last?.headers["range"] == "bytes=\(kept)-")
        let served = try fx.accessLog(atLeast: 2, where: ClientFixture.isModelFile)
        // (Log order is completion order: the interrupted transfer may be logged after the resumed one.)
        let resumedRecord = served.first { $0["range"] as? Bool == true }
        #expect(resumedRecord?["bytes"] as? Int == size - kept)
        #expect(try SHA256Sum.of(try #require(resumed.active).path) == published.sha256)
    }

    @Test func policies_local_latest_andLocalThenUpdateInBackground() async throws {
        let client = try makeClient()
        #expect(try await client.model(policy: .local) == nil)
        #expect(fx.proxy.seen.isEmpty, "local must not touch the network")

        let first = try fx.publish(size: 10_000)
        #expect(try await client.model(policy: .latest)?.id == first.id)
        let second = try fx.publish(size: 20_000)
        #expect(try await client.model(policy: .local)?.id == first.id)

        // The installed model at once; the newer one arrives in the background.
        let requestsBefore = fx.latestRequests.count
        #expect(try await client.model(policy: .localThenUpdateInBackground)?.id == first.id)
        var active: String?
        let deadline = Date().addingTimeInterval(20)
        while active != second.id, Date() < deadline {
            active = await client.activeModel()?.id
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(active == second.id)
        #expect(fx.latestRequests.count == requestsBefore + 1)
    }

    @Test func aReleaseOverMaxBytes_isReportedAvailable_andNotDownloaded() async throws {
        let published = try fx.publish(size: 100_000)
        let small = try makeClient { $0.conditions = DownloadConditions(maxBytes: 99_999) }
        let result = try await small.update()
        #expect(result.status == .available && result.active == nil)
        #expect(try await small.check().release?.id == published.id)
        #expect(fx.modelRequests(published.id).isEmpty)
        #expect(try await small.model(policy: .latest) == nil)
    }

    @Test func aReleaseOfExactlyMaxBytes_isDownloaded() async throws {
        let published = try fx.publish(size: 100_000)
        let client = try makeClient { $0.conditions.maxBytes = 100_000 }
        #expect(try await client.update().active?.id == published.id)
    }
}

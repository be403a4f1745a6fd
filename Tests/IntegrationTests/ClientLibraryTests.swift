import ChildProcesses
import Foundation
import ModeldClient
import Testing

/// `ModelChannel` in this process against the real modeld through the fault-injecting proxy
/// (SPEC §13): single flight, Retry-After, launch health. (A crash between install steps is a
/// real SIGKILL of the `modeld-client` process: ClientCLITests.)
@Suite(.serialized) final class ClientLibraryTests {
    let fx: ClientFixture
    init() throws { fx = try ClientFixture() }

    func makeClient(backoffBase: TimeInterval = 30) throws -> ModelChannel {
        try ModelChannel(ModeldConfiguration(source: .server(URL(string: fx.proxy.url)!), sdkVersion: "2.3",
                                             cacheDirectory: fx.cache, backoffBase: backoffBase).allowingUnsigned())
    }

    @Test func tenConcurrentUpdates_shareOneCheckAndOneDownload_SPEC13() async throws {
        let published = try fx.publish(size: 4 << 20)
        fx.proxy.add(.init(pathContains: "/models/", fault: .throttle(bytesPerSecond: 16 << 20), times: 1))
        let client = try makeClient()
        let results = try await withThrowingTaskGroup(of: UpdateResult.self) { group in
            for _ in 0..<10 { group.addTask { try await client.update() } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.count == 10 && results.allSatisfy { $0.status == .updated && $0.active?.id == published.id })
        #expect(fx.latestRequests.count == 1)
        #expect(fx.modelRequests(published.id).count == 1)
        let log = try fx.accessLog(atLeast: 2) { $0["route"] as? String == "latest" || ClientFixture.isModelFile($0) }
        #expect(log.filter { $0["route"] as? String == "latest" }.count == 1)
        #expect(log.filter(ClientFixture.isModelFile).count == 1)
    }

    @Test func serviceUnavailable_retryAfterIsHonoured_SPEC13() async throws {
        _ = try fx.publish(size: 1000)
        fx.proxy.add(.init(pathContains: "/latest", fault: .serviceUnavailable(retryAfter: "2"), times: 1))
        let client = try makeClient(backoffBase: 0.01)
        await #expect(throws: ModeldClientError.self) { try await client.check() }
        // Retry-After counts from the 503's arrival, which follows the proxy's record of the
        // request: however slow the machine, the next check is due ≥ 2 s after that record.
        let refused = try #require(fx.latestRequests.first).at
        let notBefore = await client.nextCheckDate()
        #expect(notBefore.timeIntervalSince(refused) >= 2)

        // Until then every check is deferred to that date; the first one after it reaches the
        // server (polled with a deadline, not timed).
        var deferrals: [Date] = []
        var result: CheckResult?
        var answeredAt: Date?
        while result == nil, Date().timeIntervalSince(refused) < 10 {
            do {
                result = try await client.check()
                answeredAt = Date()
            } catch ModeldClientError.deferred(let until) { deferrals.append(until) }
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(result?.status == .available)
        #expect(deferrals.allSatisfy { $0 == notBefore })
        #expect(try #require(answeredAt) >= notBefore)
        let latest = fx.latestRequests
        #expect(latest.count == 2)
        if latest.count == 2 { #expect(latest[1].at.timeIntervalSince(latest[0].at) >= 2) }
    }

    @Test func crashLoop_rollsBackAtNextStart_andReportBadBlocks_SPEC13() async throws {
        let first = try fx.publish(size: 10_000)
        var client: ModelChannel? = try makeClient()
        #expect(try await client!.update().active?.id == first.id)
        try await client!.markGood(first.id)
        let second = try fx.publish(size: 20_000)
        #expect(try await client!.update().active?.id == second.id)

        // Two app processes that load the new model and are SIGKILLed without markGood: the
        // next start rolls back.
        await client!.close()
        for launches in 1...2 {
            let app = try fx.launchedApp(counted: launches)
            app.signal(SIGKILL)
            _ = try app.wait(timeout: .seconds(10))
        }
        client = try makeClient()
        #expect(await client!.activeModel()?.id == first.id)
        let check = try await client!.check()
        #expect(check.status == .upToDate && check.release?.id == second.id)  // blocked: not offered again

        // reportBad of the model in use: back to the bundled model (nothing older is kept).
        #expect(try await client!.reportBad(first.id, reason: "accuracy") == nil)
        #expect(await client!.activeModel() == nil)
        #expect(await client!.pendingEventCount() == 1)  // model_rejected; the rest rode along with the check
        let flushed = try await client!.flushEvents()
        #expect(flushed.remaining == 0)
        let export = try ChildProcess.run(TestBinaries.modelctl, ["events", "export", "--data-dir", fx.server.dataDir.path])
        #expect(export.stdout.contains("\"model_rejected\""))
        #expect(export.stdout.contains("\"crash_loop\"") && export.stdout.contains("\"accuracy\""))
    }

    @Test func aSecondClientOnTheSameCache_isRefused() throws {
        let client = try makeClient()
        #expect(throws: ModeldClientError.self) { try self.makeClient() }
        _ = client
    }
}

import ChildProcesses
import Foundation
import Testing

/// SPEC §13.2's back-off through `modeld-client` against the real modeld and the fault proxy:
/// an unreachable network or a condition stores none, 5xx answers do, and `update --now`
/// skips it (but not a fresh `Retry-After`).
@Suite(.serialized) final class ClientBackoffCLITests {
    let fx: ClientFixture
    init() throws { fx = try ClientFixture() }

    /// The channel's stored back-off: consecutive failures and the not-before date, if any.
    func storedBackoff() throws -> (failures: Int, notBefore: Date?) {
        let data = try Data(contentsOf: fx.cache.appendingPathComponent("channels/stable/state.json"))
        let state = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let notBefore = (state["not_before"] as? String).flatMap { ISO8601DateFormatter().date(from: $0) }
        return (state["failures"] as? Int ?? 0, notBefore)
    }

    static let unavailable = FaultProxy.Fault.respond(
        status: "503 Service Unavailable", headers: ["Content-Type: application/json"],
        body: Array(#"{"error":"unavailable","message":"injected by the test proxy"}"#.utf8))

    @Test func anUnreachableNetwork_orACondition_storesNoBackoff_SPEC13_2() throws {
        let published = try fx.publish(size: 50_000)
        let dead = try FaultProxy()
        dead.stop()  // nothing listens there any more: connection refused
        for _ in 0..<3 {
            let offline = try ChildProcess.run(TestBinaries.modeldClient, ["--server", dead.url, "--sdk", "2.3", "--cache", fx.cache.path, "update"])
            #expect(offline.status == 1 && offline.stderr.contains("network"), "\(offline.stderr)")
            #expect(!offline.stderr.contains("backing off"), "\(offline.stderr)")
        }
        #expect(try storedBackoff().failures == 0 && storedBackoff().notBefore == nil)

        let held = try fx.client(["--json", "--max-bytes", "100", "update"])
        #expect(held.status == 0, "\(held.stderr)")
        #expect(try fx.json(held)["state"] as? String == "available")
        #expect(try storedBackoff().failures == 0 && storedBackoff().notBefore == nil)

        let online = try fx.client(["--json", "update"])
        #expect(online.status == 0, "\(online.stderr)")
        #expect(try fx.json(online)["state"] as? String == "updated")
        #expect((try fx.json(online)["active"] as? [String: Any])?["id"] as? String == published.id)
    }

    @Test func after503s_aScheduledUpdateBacksOff_andUpdateNowGoesThrough_SPEC13_2() throws {
        let published = try fx.publish(size: 50_000)
        fx.proxy.add(.init(pathContains: "/latest", fault: Self.unavailable, times: 3))
        let first = try fx.client(["update"])
        #expect(first.status == 1 && first.stderr.contains("503"), "\(first.stderr)")
        // A user-initiated update ignores the back-off the first 503 stored, and each 503 advances it.
        for failures in 2...3 {
            let now = try fx.client(["update", "--now"])
            #expect(now.status == 1 && now.stderr.contains("503"), "\(now.stderr)")
            #expect(try storedBackoff().failures == failures)
        }
        #expect(fx.latestRequests.count == 3)
        // Full jitter may draw a wait near zero: only a wait still ahead must defer.
        let notBefore = try #require(try storedBackoff().notBefore)
        if notBefore.timeIntervalSinceNow > 10 {
            let scheduled = try fx.client(["update"])
            #expect(scheduled.status == 1 && scheduled.stderr.contains("backing off until"), "\(scheduled.stderr)")
            #expect(fx.latestRequests.count == 3)
        }

        let now = try fx.client(["--json", "update", "--now"])
        #expect(now.status == 0, "\(now.stderr)")
        #expect((try fx.json(now)["active"] as? [String: Any])?["id"] as? String == published.id)
        #expect(try storedBackoff().failures == 0 && storedBackoff().notBefore == nil)
    }

    @Test func updateNow_stillHonoursARetryAfterOfTheLastMinute_SPEC13_2() throws {
        _ = try fx.publish(size: 1000)
        fx.proxy.add(.init(pathContains: "/latest", fault: .serviceUnavailable(retryAfter: "3600"), times: 1))
        #expect(try fx.client(["update"]).status == 1)
        let now = try fx.client(["update", "--now"])
        #expect(now.status == 1 && now.stderr.contains("backing off until"), "\(now.stderr)")
        #expect(fx.latestRequests.count == 1)
        // Deferred to 60 s after the 503 arrived, not to the server's hour.
        let notBefore = try #require(try storedBackoff().notBefore)
        #expect(notBefore.timeIntervalSinceNow > 3000)
    }
}

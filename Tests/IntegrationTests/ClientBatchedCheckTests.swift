import ChildProcesses
import Foundation
import Testing

/// `modeld-client update --channel A --channel B --channel C` (SPEC §17.2) against the real
/// modeld: one `POST /check` per update whatever the number of channels (the server's access
/// log), every channel installed, and the events queued in every channel stored exactly once.
@Suite(.serialized) final class ClientBatchedCheckTests {
    static let channels = ["ranker", "faces", "llm"]

    private func updateAll(_ fx: ClientFixture) throws -> [[String: Any]] {
        let r = try fx.client(Self.channels.flatMap { ["--channel", $0] } + ["--json", "update"])
        try #require(r.status == 0, "update: \(r.stdout) \(r.stderr)")
        return r.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    /// Update checks in the access log so far (`/latest` and `/check`).
    private func checks(_ fx: ClientFixture, atLeast count: Int) throws -> [[String: Any]] {
        try fx.accessLog(atLeast: count) { ["latest", "check"].contains($0["route"] as? String ?? "") }
    }

    @Test func threeChannels_oneRequestPerUpdate_eventsStoredOnce_SPEC17_2() throws {
        let fx = try ClientFixture()
        var published: [String: String] = [:]
        for channel in Self.channels { published[channel] = try fx.publish(size: 2048, channel: channel).id }

        // First update: one check, three installs.
        let first = try updateAll(fx)
        #expect(first.map { $0["channel"] as? String } == Self.channels)
        for result in first {
            #expect(result["state"] as? String == "updated", "\(result)")
            #expect((result["active"] as? [String: Any])?["id"] as? String == published[result["channel"] as! String])
        }
        var log = try checks(fx, atLeast: 1)
        #expect(log.count == 1 && log.first?["route"] as? String == "check" && log.first?["path"] as? String == "/check", "\(log)")

        // Events of two channels (plus the three model_activated the installs queued) ride on
        // the next update's one check.
        for channel in ["ranker", "llm"] {
            let r = try fx.client(["--channel", channel, "record", "--name", "shown", "--outcome", channel])
            try #require(r.status == 0, "\(r.stderr)")
        }
        let second = try updateAll(fx)
        #expect(second.allSatisfy { $0["state"] as? String == "up_to_date" }, "\(second)")
        log = try checks(fx, atLeast: 2)
        #expect(log.count == 2 && log.allSatisfy { $0["route"] as? String == "check" }, "\(log)")
        let stored = EventsFixture.storedObjects(fx.server.dataDir)
        #expect(stored.filter { $0["name"] as? String == "model_activated" }.count == 3, "\(stored)")
        #expect(Set(stored.filter { $0["name"] as? String == "shown" }.compactMap { $0["outcome"] as? String }) == ["ranker", "llm"])
        #expect(stored.count == 5 && Set(stored.compactMap { $0["batch_id"] as? String }).count == 1, "one batch: \(stored)")
        let status = try fx.client(["--channel", "ranker", "--json", "status"])
        #expect((try fx.json(status)["events"] as? [String: Any])?["pending"] as? Int == 0)

        // A change to one channel: still one check, one download; nothing stored twice.
        let newer = try fx.publish(size: 3000, channel: "faces").id
        let third = try updateAll(fx)
        #expect(third.map { $0["state"] as? String } == ["up_to_date", "updated", "up_to_date"], "\(third)")
        #expect((third[1]["active"] as? [String: Any])?["id"] as? String == newer)
        log = try checks(fx, atLeast: 3)
        #expect(log.count == 3 && log.allSatisfy { $0["route"] as? String == "check" })
        _ = try updateAll(fx)   // sends faces' new model_activated
        #expect(EventsFixture.storedObjects(fx.server.dataDir).count == 6)
        // A channel asked alone still uses /latest.
        let alone = try fx.client(["--channel", "ranker", "--json", "update"])
        #expect(alone.status == 0)
        #expect(try checks(fx, atLeast: 5).last?["route"] as? String == "latest")
    }

    @Test func retryAfterALostAnswer_reusesTheBatchID_storedOnce_SPEC17_2() throws {
        let fx = try ClientFixture()
        for channel in Self.channels { _ = try fx.publish(size: 1024, channel: channel) }
        _ = try updateAll(fx)   // queues three model_activated events
        // The server stores the batch, but the answer never reaches the client.
        fx.proxy.add(FaultProxy.Rule(pathContains: "/check", fault: .dropResponse, times: 1))
        let lost = try fx.client(Self.channels.flatMap { ["--channel", $0] } + ["update"])
        #expect(lost.status == 1)
        #expect(EventsFixture.storedObjects(fx.server.dataDir).count == 3)
        let again = try updateAll(fx)
        #expect(again.count == 3)
        #expect(EventsFixture.storedObjects(fx.server.dataDir).count == 3, "stored once")
        #expect(try EventsHTTP.metric(fx.server.port, #"modeld_events_total{result="duplicate"}"#) == 3)
    }
}

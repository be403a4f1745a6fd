import ChildProcesses
import Foundation
import Synchronization
import Guardrails
import HTTPTestSupport
import Testing
import TestRandomness

/// A guard's decision, taken by the real `modeld`, checked against a recomputation the test makes
/// itself from `modelctl events export` (issue #11 item 6): per client first, then per arm, then
/// Δ̂, h₁ and the rule. Also across a SIGKILL of the evaluating replica mid-run.
///
/// The load is arranged so that the decision can only come after the last client reported: each
/// arm has exactly `min_clients_per_arm` clients (chosen with the independent bucket oracle), the
/// control arm reports first, and a client's events are committed as one group (the store's
/// commit record), so no evaluation ever sees a ready pair of arms before the whole load is in.
/// The decision therefore covers exactly what the export holds, and the comparison can be exact.
@Suite final class GuardRecomputationTests {
    /// Figures are printed by modeld in shortest round-trip form; the evaluator sums
    /// incrementally and the recomputation in two passes, so only rounding separates them.
    static let tolerance = 1e-9

    @Test func pauseDecision_matchesARecomputationFromTheExport_SPEC11_3() throws {
        let server = try ModeldServer(environment: ["MODELD_GUARD_INTERVAL_SECONDS": "1"], empty: true)
        let run = try GuardRun(publishingTo: server, clientsPerArm: 800)
        var random = SeededGenerator(state: 11)
        try run.load(run.control + run.treatment, through: [server], random: &random)

        let decision = try #require(run.awaitDecision(in: server.dataDir, within: 90), "no decision; log:\n\(server.log)")
        let expected = try run.recompute(from: server.dataDir)
        try run.expect(decision: decision, matches: expected)

        // `modelctl experiment status --json` shows the same figures (the last evaluation is the one that paused).
        let status = try run.modelctl(["experiment", "status", run.challenger, "--json"], server)
        try #require(status.status == 0, "\(status.stderr)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])
        #expect(document["status"] as? String == "paused_regression")
        run.expect(figures: document, match: expected, "experiment status --json")
    }

    @Test func sigkillOfTheEvaluatingReplicaMidRun_theOtherReachesTheSameDecision_SPEC11_4() throws {
        let env = ["MODELD_GUARD_INTERVAL_SECONDS": "1"]
        let a = try ModeldServer(environment: env, empty: true)
        let b = try ModeldServer(environment: env, root: a.root)
        let run = try GuardRun(publishingTo: a, clientsPerArm: 800)
        // The other replica serves the challenger once it followed the catalog (SPEC §9: within 2 s).
        for replica in [a, b] {
            #expect(try ModeldServer.eventually(within: 10) { try run.served(run.treatment[0].id, by: replica) == run.challenger })
        }
        let evaluating = "evaluates guarded rollouts"
        #expect(ModeldServer.eventually(within: 10) { a.log.contains(evaluating) || b.log.contains(evaluating) })
        let (holder, standby) = a.log.contains(evaluating) ? (a, b) : (b, a)

        // Both replicas take events, so the segments of two instances hold the load.
        var random = SeededGenerator(state: 12)
        let half = run.treatment.count / 2
        try run.load(run.control + run.treatment[..<half], through: [a, b], random: &random)
        // The holder has counted all of it (its figures are on disk): it is mid-run, with state.
        let counted = ModeldServer.eventually(within: 60) {
            let state = try? JSONSerialization.jsonObject(with: Data(contentsOf: run.statePath(a.dataDir))) as? [String: Any]
            let arms = state?["arms"] as? [String: [String: Any]]
            return arms?["control"]?["clients"] as? Int == run.control.count && arms?["treatment"]?["clients"] as? Int == half
        }
        #expect(counted, "the evaluating replica did not count the first part of the load")
        #expect(run.decisions(in: a.dataDir).isEmpty, "a decision before the kill")
        holder.signal(SIGKILL)
        #expect(holder.waitForExit(within: 10) != nil)

        // The rest of the load through the survivor, which takes data/guard.lock, rebuilds from
        // every instance's segments and decides.
        try run.load(run.treatment[half...], through: [standby], random: &random)
        let decision = try #require(run.awaitDecision(in: a.dataDir, within: 90), "no decision; standby log:\n\(standby.log)")
        #expect(standby.log.contains(evaluating))
        let records = run.decisions(in: a.dataDir)
        #expect(records.count == 1, "one decision, by one replica: \(records)")
        // The same decision an uninterrupted run reaches: the export holds the whole load, and
        // the figures recomputed from it decide `pause` and equal what the survivor recorded.
        try run.expect(decision: decision, matches: try run.recompute(from: a.dataDir))
    }
}

/// One guarded experiment through the real binaries: a baseline, a challenger at stage 50 with
/// `min_clients_per_arm` = the clients per arm, and simulated clients whose arm is known in
/// advance from SPEC §3's bucket computed by Python (`RolloutOracle`), not by modeld.
private struct GuardRun {
    struct Client {
        let id: String
        let arm: Arm
    }

    static let stage = 50, tuningClients = 1_000, alpha = 0.05
    let baseline: String
    let challenger: String
    let startedAt: String
    let treatment: [Client]
    let control: [Client]
    private let buckets: [String: Int]
    private let token: String

    init(publishingTo server: ModeldServer, clientsPerArm: Int) throws {
        token = server.token
        let scratch = server.root.appendingPathComponent("scratch-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        func publish(_ extra: [String]) throws -> [String: Any] {
            let file = scratch.appendingPathComponent("\(UUID().uuidString).bin")
            try Data((0..<4096).map { _ in UInt8.random(in: 0...255) }).write(to: file)
            let r = try ChildProcess.run(TestBinaries.modelctl, ["publish", file.path, "--sdk-min", "1.0", "--json",
                                                                 "--server", server.url, "--token", server.token] + extra)
            try #require(r.status == 0, "publish: \(r.stderr)")
            return try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        }
        baseline = try #require(try publish([])["id"] as? String)
        let guardJSON = #"{"metric":{"name":"upsell","outcome":"purchased"},"stages":[\#(Self.stage)],"min_clients_per_arm":\#(clientsPerArm),"#
            + #""min_stage_seconds":3600,"tuning_clients":\#(Self.tuningClients),"alpha":\#(Self.alpha)}"#
        let release = try publish(["--guard", guardJSON])
        challenger = try #require(release["id"] as? String)
        startedAt = try #require((release["guard"] as? [String: Any])?["started_at"] as? String)

        let candidates = (0..<(2 * clientsPerArm + 400)).map { "client-\($0)" }
        let buckets = try RolloutOracle.buckets(releaseID: challenger, clientIDs: candidates)
        let clients = candidates.map { Client(id: $0, arm: buckets[$0]! < Self.stage ? Arm.treatment : Arm.control) }
        let treatment = Array(clients.filter { $0.arm == Arm.treatment }.prefix(clientsPerArm))
        let control = Array(clients.filter { $0.arm == Arm.control }.prefix(clientsPerArm))
        try #require(treatment.count == clientsPerArm && control.count == clientsPerArm, "not enough candidates per arm")
        (self.buckets, self.treatment, self.control) = (buckets, treatment, control)
    }

    func modelctl(_ arguments: [String], _ server: ModeldServer) throws -> ProcessResult {
        try ChildProcess.run(TestBinaries.modelctl, arguments + ["--server", server.url, "--token", token])
    }

    func statePath(_ dataDir: URL) -> URL { dataDir.appendingPathComponent("guard-state/\(challenger).json") }

    /// The release `server` answers `client` on its update check.
    func served(_ client: String, by server: ModeldServer) throws -> String? {
        let r = try Curl.run([server.url + "/latest?sdk=1.0&client_id=\(client)"])
        return r.json?["id"] as? String
    }

    /// Each client checks for an update (POST /latest, as an app does) and reports, in one batch,
    /// 4 prompts of the model it was served — `purchased` with probability 0.1 on the challenger,
    /// 0.5 on the baseline — and one event of another name, which must not count. Four lanes at
    /// once, each with one keep-alive connection per server that its clients take turns over:
    /// one lane waited out every event batch's fsync in turn, and took minutes on a busy disk.
    /// The draws are made first, in client order, so the load is the same whatever the lanes'
    /// interleaving; a decision still waits for the whole load, since each arm has exactly
    /// `min_clients_per_arm` clients.
    func load<C: Collection<Client>>(_ clients: C, through servers: [ModeldServer], random: inout SeededGenerator) throws {
        let draws = clients.map { client in (client, (0..<4).map { _ in Double.random(in: 0..<1, using: &random) }) }
        let ports = servers.map(\.port)
        let problems = Mutex<[String]>([])
        let lanes = 4
        DispatchQueue.concurrentPerform(iterations: lanes) { lane in
            do {
                let connections = try ports.map { try RawClient(port: $0) }
                for (i, (client, draw)) in draws.enumerated() where i % lanes == lane {
                    let connection = connections[i / lanes % connections.count]
                    let model = try connection.postJSON("/latest?sdk=1.0", #"{"batch_id":"check","client_id":"\#(client.id)","events":[]}"#)["id"] as? String
                    guard let model, model == (client.arm == .treatment ? challenger : baseline) else {
                        problems.withLock { $0.append("\(client.id) in \(client.arm) was served \(model ?? "nothing")") }
                        continue
                    }
                    let p = model == challenger ? 0.1 : 0.5
                    var events = draw.map {
                        #"{"name":"upsell","ts":"2026-11-21T10:00:00Z","model_id":"\#(model)","outcome":"\#($0 < p ? "purchased" : "dismissed")"}"#
                    }
                    events.append(#"{"name":"screen_view","ts":"2026-11-21T10:00:01Z","model_id":"\#(model)","outcome":"purchased"}"#)
                    _ = try connection.postJSON("/events?sdk=1.0", #"{"batch_id":"b1","client_id":"\#(client.id)","events":[\#(events.joined(separator: ","))]}"#)
                }
            } catch {
                problems.withLock { $0.append("lane \(lane): \(error)") }
            }
        }
        let found = problems.withLock { $0 }
        #expect(found.isEmpty, "\(found.prefix(5))")
    }

    /// This challenger's lines of `data/guard-decisions.jsonl`.
    func decisions(in dataDir: URL) -> [[String: Any]] {
        let text = (try? String(contentsOf: dataDir.appendingPathComponent("guard-decisions.jsonl"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .filter { $0["release"] as? String == challenger }
    }

    func awaitDecision(in dataDir: URL, within seconds: Double) -> [String: Any]? {
        var found: [String: Any]?
        _ = ModeldServer.eventually(within: seconds) {
            found = decisions(in: dataDir).first
            return found != nil
        }
        return found
    }

    struct ArmFigures {
        let clients: Int
        let mean: Double
        let variance: Double
    }

    struct Figures {
        let treatment: ArmFigures
        let control: ArmFigures
        let delta: Double
        let bound: Double
    }

    /// SPEC §11.1–§11.3 applied to the exported lines by the test itself: an event counts when it
    /// is named `upsell`, has a client, was received once the guard began, and names the model
    /// of its client's arm (bucket < p: the challenger; bucket ≥ 100 − p: another release). A
    /// client's value is its share of `purchased`; each arm's mean and variance (÷ n) are over
    /// its clients' values, in two passes. Only h₁'s formula is Guardrails' own.
    func recompute(from dataDir: URL) throws -> Figures {
        let export = try ChildProcess.run(TestBinaries.modelctl, ["events", "export", "--data-dir", dataDir.path])
        try #require(export.status == 0, "events export: \(export.stderr)")
        var tallies: [String: (arm: Arm, events: Int, purchased: Int)] = [:]
        for line in export.stdout.split(separator: "\n") {
            let event = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            // received_at and started_at are both RFC 3339 UTC with milliseconds: string order is time order.
            guard event["name"] as? String == "upsell", let client = event["client_id"] as? String,
                  let received = event["received_at"] as? String, received >= startedAt, let bucket = buckets[client]
            else { continue }
            let model = event["model_id"] as? String
            let arm: Arm
            if bucket < Self.stage, model == challenger { arm = .treatment } else if bucket >= 100 - Self.stage, model == baseline { arm = .control } else { continue }
            var tally = tallies[client] ?? (arm, 0, 0)
            tally.events += 1
            if event["outcome"] as? String == "purchased" { tally.purchased += 1 }
            tallies[client] = tally
        }
        func figures(_ arm: Arm) -> ArmFigures {
            let values = tallies.values.filter { $0.arm == arm }.map { Double($0.purchased) / Double($0.events) }
            let n = Double(values.count)
            let mean = values.reduce(0, +) / n
            return ArmFigures(clients: values.count, mean: mean, variance: values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / n)
        }
        let t = figures(.treatment), c = figures(.control)
        let bound = SequentialBound.halfWidth(variance: t.variance / Double(t.clients) + c.variance / Double(c.clients),
                                              clients: t.clients + c.clients, alpha: Self.alpha, tuningClients: Self.tuningClients)
        return Figures(treatment: t, control: c, delta: t.mean - c.mean, bound: bound)
    }

    /// The decision is the one the recomputed figures call for (Δ̂ + h₁ < 0: pause at stage 50,
    /// no SRM with equal arms) and carries the same figures.
    func expect(decision: [String: Any], matches expected: Figures) throws {
        #expect(expected.treatment.clients == treatment.count && expected.control.clients == control.count,
                "the export does not hold the whole load: \(expected)")
        #expect(expected.delta + expected.bound < 0, "the recomputed figures do not call for a pause: \(expected)")
        #expect(decision["rule"] as? String == "pause" && decision["stage"] as? Int == Self.stage && decision["next_stage"] is NSNull, "\(decision)")
        expect(figures: decision, match: expected, "decision record")
    }

    func expect(figures record: [String: Any], match expected: Figures, _ source: String) {
        func close(_ value: Any?, _ want: Double) -> Bool {
            guard let got = value as? Double else { return false }
            return abs(got - want) <= GuardRecomputationTests.tolerance * max(1, abs(want))
        }
        let arms = record["arms"] as? [String: [String: Any]]
        for (name, want) in [("treatment", expected.treatment), ("control", expected.control)] {
            let got = arms?[name]
            #expect(got?["clients"] as? Int == want.clients && close(got?["mean"], want.mean) && close(got?["variance"], want.variance),
                    "\(source) \(name): \(String(describing: got)) vs recomputed \(want)")
        }
        #expect(close(record["delta"], expected.delta) && close(record["bound"], expected.bound),
                "\(source): delta \(String(describing: record["delta"])) bound \(String(describing: record["bound"])) vs recomputed \(expected.delta) \(expected.bound)")
        #expect(close(record["alpha"], Self.alpha) && record["tuning_clients"] as? Int == Self.tuningClients)
    }
}

extension RawClient {
    /// POSTs a JSON body on this keep-alive connection; the answer must be 200 with a JSON object.
    func postJSON(_ path: String, _ body: String) throws -> [String: Any] {
        try send("POST \(path) HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
        let response = try readResponse()
        guard response.status == 200, let object = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any] else {
            throw RawClientError("\(path) → \(response.status) \(response.text)")
        }
        return object
    }
}

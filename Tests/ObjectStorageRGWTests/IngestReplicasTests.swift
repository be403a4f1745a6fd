import ChildProcesses
import Foundation
import HTTPTestSupport
import NginxProxySupport
import Testing

/// SPEC §18 against real parts: two ingest replicas (`ingest_only`, each its own data
/// directory, shipping to RGW) behind one nginx address, an origin whose guard reads the bucket
/// (`guard_events_from`), and a simulated fleet posting a worse challenger's outcomes through
/// nginx while one replica is SIGKILLed and restarted. No two processes share a directory.
@Suite(.enabled(if: RGWCluster.shouldRun, RGWCluster.skipMessage), .serialized)
struct IngestReplicasTests {
    static let guardPlan = #"{"metric":{"name":"upsell","outcome":"purchased"},"stages":[50],"min_clients_per_arm":100,"min_stage_seconds":3600,"tuning_clients":1000}"#

    /// One POST of `body`; the parsed 200 answer, or nil for anything else (an error status, a
    /// connection nginx or a dying replica closed): the fleet then retries the same batch.
    static func post(_ connection: inout RawClient?, port: Int, _ path: String, _ body: String) -> [String: Any]? {
        do {
            if connection == nil { connection = try RawClient(port: port) }
            try connection!.send("POST \(path) HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
            let response = try connection!.readResponse()
            if response.headers["Connection"]?.lowercased() == "close" { connection = nil }
            guard response.status == 200 else { return nil }
            return try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
        } catch {
            connection = nil
            return nil
        }
    }

    static func get(_ connection: RawClient, _ path: String) throws -> [String: Any] {
        try connection.send("GET \(path) HTTP/1.1\r\nHost: t\r\n\r\n")
        let response = try connection.readResponse()
        return try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any], "\(path) → \(response.status)")
    }

    @Test func fleetThroughTwoIngestReplicas_guardReadsTheBucket_pausesWorseChallenger_everyAckedBatchOnce_SPEC18() throws {
        let cluster = try RGWCluster.require()
        let client = try cluster.client()
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("ingest-\(UUID().uuidString)").path
        // Each process's own directory (modeld creates data/ inside it).
        for directory in ["models", "origin", "ing-a", "ing-b"] {
            try FileManager.default.createDirectory(atPath: root + "/" + directory, withIntermediateDirectories: true)
        }
        try Data("{}".utf8).write(to: URL(fileURLWithPath: root + "/modeld.json"))
        defer { try? FileManager.default.removeItem(atPath: root) }
        let prefix = "ingest-\(UUID().uuidString.prefix(8))"
        let to = "s3://\(RGWCluster.bucket)/\(prefix)"
        let credentials = ["AWS_ACCESS_KEY_ID": cluster.credentials.accessKeyID, "AWS_SECRET_ACCESS_KEY": cluster.credentials.secretAccessKey]

        // The origin: the catalog, the guard (every second) reading the bucket; its own data/.
        var ids: [String] = []
        for (n, extra) in [[], ["--guard", Self.guardPlan]].enumerated() {
            let file = try RGWClientTests.scratchFile(size: 1_000 + n, seed: UInt8(20 + n), ext: "onnx")
            defer { unlink(file.path) }
            let published = try ChildProcess.run(MirrorCLITests.modelctl, ["publish", file.path, "--sdk-min", "1.0", "--models-dir", root + "/models",
                                                                          "--public-base-url", "http://cdn.example", "--json"] + extra, timeout: .seconds(60))
            try #require(published.status == 0, "\(published.stderr)")
            ids.append(try #require((try JSONSerialization.jsonObject(with: Data(published.stdout.utf8)) as? [String: Any])?["id"] as? String))
        }
        let challenger = ids[1]
        let origin = try ModeldProcess(directory: root, name: "origin",
                                       arguments: ["--config", root + "/modeld.json", "--models-dir", root + "/models", "--data-dir", root + "/origin/data",
                                                   "--public-base-url", "http://cdn.example"],
                                       environment: credentials.merging(["MODELD_INSTANCE_ID": "origin", "MODELD_GUARD_INTERVAL_SECONDS": "1",
                                                                         "MODELD_GUARD_EVENTS_FROM": to, "MODELD_GUARD_EVENTS_ENDPOINT": cluster.endpoint]) { a, _ in a })
        defer { _ = try? origin.stop() }

        // Two ingest replicas: no models directory, each its own data/, 1 s rotation, shipping.
        func replica(_ name: String, port: Int = 0) throws -> ModeldProcess {
            try ModeldProcess(directory: root, name: name, arguments: ["--config", root + "/modeld.json", "--data-dir", root + "/\(name)/data"],
                              environment: credentials.merging(["MODELD_INGEST_ONLY": "true", "MODELD_INSTANCE_ID": name,
                                                                "MODELD_EVENTS_SEGMENT_MAX_SECONDS": "1", "MODELD_EVENTS_SHIP_TO": to,
                                                                "MODELD_EVENTS_SHIP_ENDPOINT": cluster.endpoint]) { a, _ in a },
                              port: port)
        }
        var a = try replica("ing-a")
        let b = try replica("ing-b")
        defer { _ = try? b.stop() }
        #expect(!FileManager.default.fileExists(atPath: root + "/ing-a/models"), "an ingest replica creates no models directory")
        let nginx = try NginxProxy(upstreams: ["127.0.0.1:\(a.port)", "127.0.0.1:\(b.port)"])
        defer { nginx.stop() }

        // The ingest replica answers only its three routes.
        var probe: RawClient? = try RawClient(port: a.port)
        #expect(try Self.get(probe!, "/latest?sdk=1.0")["error"] as? String == "not_found")
        #expect(try Self.get(probe!, "/healthz")["status"] as? String == "ok")
        probe = nil

        // The fleet: each client checks at the origin, then reports 4 outcomes through nginx;
        // the challenger converts 10 %, the baseline 50 %. A batch is retried (same batch_id)
        // until acknowledged, as the client library does.
        let clients = 1_200
        let checks = try RawClient(port: origin.port)
        var events: RawClient?
        var random = SystemRandomNumberGenerator()
        var acknowledged = Set<String>()
        var onChallenger = 0
        for i in 0..<clients {
            if i == clients / 2 { try a.killHard() }                       // mid-traffic: nginx fails over to B
            if i == clients * 3 / 4 { a = try replica("ing-a", port: a.port) }   // same data/, same address
            let id = "client-\(i)"
            let model = try #require(try Self.get(checks, "/latest?sdk=1.0&client_id=\(id)")["id"] as? String)
            if model == challenger { onChallenger += 1 }
            let p = model == challenger ? 0.1 : 0.5
            let outcomes = (0..<4).map { _ in
                #"{"name":"upsell","ts":"2026-12-01T10:00:00Z","model_id":"\#(model)","outcome":"\#(Double.random(in: 0..<1, using: &random) < p ? "purchased" : "dismissed")"}"#
            }
            let body = #"{"batch_id":"b1","client_id":"\#(id)","events":[\#(outcomes.joined(separator: ","))]}"#
            var answer: [String: Any]?
            for _ in 0..<20 where answer == nil {
                answer = Self.post(&events, port: nginx.port, "/events?sdk=1.0", body)
                if answer == nil { usleep(100_000) }
            }
            try #require(answer != nil, "batch of \(id) never acknowledged")
            acknowledged.insert(id)
        }
        defer { _ = try? a.stop() }
        #expect(onChallenger >= 150, "\(onChallenger) clients got the challenger")

        // The guard, reading only the bucket, pauses the challenger. Its thread is SCHED_IDLE
        // (SPEC §11.4's evaluator yields to serving), so on a saturated machine it waits for idle
        // cycles: the bound is generous, the poll ends as soon as the pause shows.
        var status = ""
        let paused = try MirrorCLITests.poll(seconds: 180, every: 0.5) {
            let run = try ChildProcess.run(MirrorCLITests.modelctl, ["experiment", "status", challenger, "--data-dir", root + "/origin/data",
                                                                    "--models-dir", root + "/models", "--json"], timeout: .seconds(30))
            status = run.stdout
            return status.contains(#""status":"paused_regression""#)
        }
        #expect(paused, "\(status)\n\(((try? String(contentsOfFile: origin.log, encoding: .utf8)) ?? "").suffix(2000))")
        // The newest event read per instance is shown, and names the replicas (never the origin).
        let document = try #require(try JSONSerialization.jsonObject(with: Data(status.utf8)) as? [String: Any])
        let read = try #require(document["events_read"] as? [String: String], "\(status)")
        #expect(Set(read.keys).isSubset(of: ["ing-a", "ing-b"]) && !read.isEmpty, "\(read)")
        let text = try ChildProcess.run(MirrorCLITests.modelctl, ["experiment", "status", challenger, "--data-dir", root + "/origin/data",
                                                                 "--models-dir", root + "/models"], timeout: .seconds(30)).stdout
        #expect(text.contains("events read:"), "\(text)")

        // SIGTERM seals and ships each replica's open segment before exit.
        #expect(try a.stop() == 0)
        #expect(try b.stop() == 0)
        var local: [String] = []
        for name in ["ing-a", "ing-b"] {
            let segments = EventsShipCLITests.segments(root + "/\(name)").map { "\(prefix)/events/dt=\($0.prefix(10))/\($0.dropFirst(11)).gz" }
            let ledger = try String(contentsOfFile: root + "/\(name)/data/shipped.jsonl", encoding: .utf8).split(separator: "\n")
            #expect(ledger.count == segments.count, "\(name): every segment shipped once")
            local += segments
        }
        let keys = try client.list(prefix: prefix + "/").map(\.key)
        #expect(keys.sorted() == local.sorted(), "the bucket holds every replica's segments, each once")

        // Every acknowledged batch is in the bucket, counted once by the read-side dedup.
        let export = try EventsShipCLITests.modelctl(cluster, ["events", "export", "--from", to])
        #expect(export.status == 0, "\(export.stderr)")
        let lines = export.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(lines.count == 4 * acknowledged.count, "\(lines.count) events exported for \(acknowledged.count) batches")
        #expect(Set(lines.compactMap { $0["client_id"] as? String }) == acknowledged)

        // The guard read each object at most once (its ledger), only objects of the bucket.
        let guardLedger = try String(contentsOfFile: root + "/origin/data/guard-state/events-read.jsonl", encoding: .utf8).split(separator: "\n")
            .compactMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["key"] as? String }
        #expect(Set(guardLedger).count == guardLedger.count && Set(guardLedger).isSubset(of: Set(keys)) && !guardLedger.isEmpty)
    }
}

import ChildProcesses
import Foundation
import Testing

/// `modelctl events ship` and `events export --from` (SPEC §9.1): the real modeld writing
/// segments, the real modelctl shipping them to the real RGW.
@Suite(.enabled(if: RGWCluster.shouldRun, RGWCluster.skipMessage), .serialized)
struct EventsShipCLITests {
    /// modeld on an ephemeral port rotating segments every second.
    struct Server {
        let modeld: ModeldProcess
        var port: Int { modeld.port }

        init(root: String, instance: String) throws {
            modeld = try ModeldProcess(directory: root, name: "modeld-\(instance)",
                                       arguments: ["--config", root + "/modeld.json", "--models-dir", root + "/models",
                                                   "--data-dir", root + "/data", "--public-base-url", "http://cdn.example"],
                                       environment: ["MODELD_INSTANCE_ID": instance, "MODELD_EVENTS_SEGMENT_MAX_SECONDS": "1"])
        }

        func post(_ batchID: String) throws -> String {
            let body = #"{"batch_id":"\#(batchID)","client_id":"c1","events":[{"name":"n","ts":"2026-11-21T10:00:00Z","model_id":"m","outcome":"ok"},{"name":"n","ts":"2026-11-21T10:00:01Z","model_id":"m","outcome":"no"}]}"#
            return try ChildProcess.run("/usr/bin/curl", ["-sS", "-XPOST", "-H", "Content-Type: application/json", "--data-binary", body,
                                               "http://127.0.0.1:\(port)/events?sdk=2.3"], timeout: .seconds(30)).stdout
        }

        func stop() throws -> Int32 { try modeld.stop() }
    }

    /// A scratch directory with empty models/ and data/ and an empty config file.
    static func serverRoot() throws -> String {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("ship-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root + "/models", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root + "/data", withIntermediateDirectories: true)
        try Data("{}".utf8).write(to: URL(fileURLWithPath: root + "/modeld.json"))
        return root
    }

    static func segments(_ root: String) -> [String] {
        let events = root + "/data/events"
        return ((try? FileManager.default.contentsOfDirectory(atPath: events)) ?? []).sorted().flatMap { day in
            ((try? FileManager.default.contentsOfDirectory(atPath: "\(events)/\(day)")) ?? []).filter { $0.hasSuffix(".jsonl") }
                .sorted().map { "\(day)/\($0)" }
        }
    }

    static func modelctl(_ cluster: RGWCluster, _ arguments: [String]) throws -> ProcessResult {
        try ChildProcess.run(MirrorCLITests.modelctl, arguments + ["--endpoint", cluster.endpoint],
                  environment: ["AWS_ACCESS_KEY_ID": cluster.credentials.accessKeyID,
                                "AWS_SECRET_ACCESS_KEY": cluster.credentials.secretAccessKey], timeout: .seconds(60))
    }

    @Test func ship_exactlyOnceAcrossRunsAndRestart_exportFromBucketEqualsLocal_SPEC9_1() throws {
        let cluster = try RGWCluster.require()
        let client = try cluster.client()
        let root = try Self.serverRoot()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let prefix = "ship-\(UUID().uuidString.prefix(8))"
        let to = "s3://\(RGWCluster.bucket)/\(prefix)"
        let ship = ["events", "ship", "--data-dir", root + "/data", "--to", to, "--json"]

        var server = try Server(root: root, instance: "ship-a")
        #expect(try server.post("b1").contains(#""accepted":2"#))
        // Rotation by age seals the first segment (a successor is opened) without more traffic.
        #expect(try MirrorCLITests.poll(seconds: 10) { Self.segments(root).count == 2 })
        var run = try Self.modelctl(cluster, ship)
        #expect(run.status == 0 && run.stdout == #"{"shipped":1,"skipped":0,"bytes":\#(MirrorCLITests.size(root + "/data/events/" + Self.segments(root)[0]))}"# + "\n",
                "\(run.stdout)\(run.stderr)")

        #expect(try server.post("b2").contains(#""accepted":2"#))
        #expect(try server.post("b1").contains(#""duplicate":true"#))
        #expect(try MirrorCLITests.poll(seconds: 10) { Self.segments(root).count == 3 })
        run = try Self.modelctl(cluster, ship)
        #expect(run.status == 0 && run.stdout.hasPrefix(#"{"shipped":1,"skipped":1,"#), "\(run.stdout)\(run.stderr)")

        // Restart: the stopped instance's last segment is sealed once no one holds its lock.
        #expect(try server.stop() == 0)
        server = try Server(root: root, instance: "ship-a")
        #expect(try server.post("b3").contains(#""accepted":2"#))
        #expect(try server.stop() == 0)
        run = try Self.modelctl(cluster, ship)
        #expect(run.status == 0 && run.stdout.hasPrefix(#"{"shipped":1,"skipped":2,"#), "\(run.stdout)\(run.stderr)")
        run = try Self.modelctl(cluster, ship)
        #expect(run.status == 0 && run.stdout.hasPrefix(#"{"shipped":0,"skipped":3,"#), "\(run.stdout)\(run.stderr)")

        // Each local segment is in the bucket exactly once and in the ledger exactly once.
        let local = Self.segments(root)
        let keys = try client.list(prefix: prefix + "/").map(\.key)
        #expect(keys == local.map { "\(prefix)/events/dt=\($0.prefix(10))/\($0.dropFirst(11)).gz" })
        let ledger = try String(contentsOfFile: root + "/data/shipped.jsonl", encoding: .utf8).split(separator: "\n")
        #expect(ledger.count == local.count)

        // A lost ledger re-ships nothing new: every PUT is answered 412 and confirmed by HEAD.
        try FileManager.default.removeItem(atPath: root + "/data/shipped.jsonl")
        run = try Self.modelctl(cluster, ship)
        #expect(run.status == 0 && run.stdout.hasPrefix(#"{"shipped":3,"skipped":0,"#), "\(run.stdout)\(run.stderr)")
        #expect(try client.list(prefix: prefix + "/").map(\.key) == keys)

        let localExport = try ChildProcess.run(MirrorCLITests.modelctl, ["events", "export", "--data-dir", root + "/data"], timeout: .seconds(60))
        let remoteExport = try Self.modelctl(cluster, ["events", "export", "--from", to])
        #expect(localExport.status == 0 && remoteExport.status == 0, "\(remoteExport.stderr)")
        #expect(localExport.stdout.split(separator: "\n").count == 6)
        #expect(remoteExport.stdout == localExport.stdout)
        let localCSV = try ChildProcess.run(MirrorCLITests.modelctl, ["events", "export", "--data-dir", root + "/data", "--format", "csv"], timeout: .seconds(60))
        #expect(try Self.modelctl(cluster, ["events", "export", "--from", to, "--format", "csv"]).stdout == localCSV.stdout)
    }

    @Test func watch_shipsEachSegmentSoonAfterItIsSealed_SPEC9_1() throws {
        let cluster = try RGWCluster.require()
        let client = try cluster.client()
        let root = try Self.serverRoot()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let prefix = "watch-\(UUID().uuidString.prefix(8))"
        let server = try Server(root: root, instance: "ship-w")
        defer { _ = try? server.stop() }  // past its timeout the server is SIGKILLed: nothing is left running
        let watcher = try ChildProcess.start(MirrorCLITests.modelctl,
            ["events", "ship", "--data-dir", root + "/data", "--to", "s3://\(RGWCluster.bucket)/\(prefix)", "--endpoint", cluster.endpoint,
             "--watch", "--interval", "1"],
            environment: ["AWS_ACCESS_KEY_ID": cluster.credentials.accessKeyID, "AWS_SECRET_ACCESS_KEY": cluster.credentials.secretAccessKey])
        for (n, batch) in ["w1", "w2"].enumerated() {
            #expect(try server.post(batch).contains(#""accepted":2"#))
            // Sealed by age after 1 s, shipped by the next pass: well within 15 s.
            #expect(try MirrorCLITests.poll(seconds: 15) { try client.list(prefix: prefix + "/").count == n + 1 }, "segment \(n + 1) not shipped")
        }
        kill(watcher.pid, SIGTERM)
        let result = try watcher.wait(timeout: .seconds(10))
        #expect(result.status == -SIGTERM, "\(result.stderr)")
        #expect(result.stdout.contains("shipped 1 segments"), "\(result.stdout)")
    }

    /// A SIGKILLed instance leaves its lock free and maybe an uncommitted tail: the segment is
    /// sealed, and only its committed prefix (commit records included) leaves the machine.
    @Test func killedInstance_lastSegmentShipsItsCommittedPrefixOnly_SPEC9_1() throws {
        let cluster = try RGWCluster.require()
        let client = try cluster.client()
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("ship-\(UUID().uuidString)").path
        let day = root + "/data/events/2026-11-21"
        try FileManager.default.createDirectory(atPath: day, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        // The lock file stays behind after a kill; nobody holds it.
        #expect(FileManager.default.createFile(atPath: root + "/data/events/k.lock", contents: nil))
        let event = #"{"name":"n","received_at":"2026-11-21T10:00:00.000Z","batch_id":"b1","client_id":"c","sdk":"2.3","seq":0,"instance":"k"}"#
        let committed = #"{"commit":{"lines":0,"bytes":0}}"# + "\n" + event + "\n" + #"{"commit":{"lines":1,"bytes":\#(event.utf8.count + 1)}}"# + "\n"
        let tail = event.replacingOccurrences(of: "b1", with: "b2") + "\n" + #"{"name":"torn"#
        try Data((committed + tail).utf8).write(to: URL(fileURLWithPath: day + "/k-000001.jsonl"))
        let prefix = "killed-\(UUID().uuidString.prefix(8))"
        let to = "s3://\(RGWCluster.bucket)/\(prefix)"
        let run = try Self.modelctl(cluster, ["events", "ship", "--data-dir", root + "/data", "--to", to, "--json"])
        #expect(run.stdout == #"{"shipped":1,"skipped":0,"bytes":\#(committed.utf8.count)}"# + "\n", "\(run.stdout)\(run.stderr)")
        let object = try client.get("\(prefix)/events/dt=2026-11-21/k-000001.jsonl.gz")
        try Data(object).write(to: URL(fileURLWithPath: root + "/object.gz"))
        #expect(try ChildProcess.run("/bin/sh", ["-c", "gzip -dc \(root)/object.gz"], timeout: .seconds(10)).stdout == committed)
        let remote = try Self.modelctl(cluster, ["events", "export", "--from", to])
        #expect(remote.stdout == event + "\n", "\(remote.stdout)\(remote.stderr)")
    }
}

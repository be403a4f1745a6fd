import ChildProcesses
import Foundation
import Testing

/// `modelctl events export|stats` over data the real server stored (SPEC §7.3), and replicas
/// sharing one data directory (SPEC §5, §9).
@Suite(.serialized) final class EventsCLITests {
    static func today(offsetDays: Int = 0) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "yyyy-MM-dd"
        return f.string(from: Date().addingTimeInterval(Double(offsetDays) * 86_400))
    }

    func jsonLines(_ text: String) -> [[String: Any]] {
        text.split(separator: "\n").compactMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] }
    }

    @Test func export_jsonlAndCSV_withSinceUntil_SPEC7_3() throws {
        let server = try ModeldServer()
        let comma = #","x_note":"a, \"quoted\" note""#
        #expect(try EventsHTTP.postEvents(server.port, EventsFixture.batch("x-1", events: [EventsFixture.event(), EventsFixture.event(outcome: "dismissed", extra: comma)])).status == 200)
        #expect(try EventsHTTP.postEvents(server.port, EventsFixture.batch("x-2", clientID: nil, events: [EventsFixture.event(model: "m-b")]),
                                          target: "/latest?sdk=2.3&client_id=from-query").status == 200)
        // The day a request straddling midnight was stored on is either side; the window covers both.
        let data = server.dataDir.path
        let jsonl = try EventsFixture.modelctl(["events", "export", "--data-dir", data])
        #expect(jsonl.status == 0, "\(jsonl.stderr)")
        let objects = jsonLines(jsonl.stdout)
        #expect(objects.count == 3 && jsonl.stdout.split(separator: "\n").count == 3)
        #expect(objects.first { $0["batch_id"] as? String == "x-2" }?["client_id"] as? String == "from-query")
        #expect(jsonl.stdout.contains(comma.dropFirst()), "jsonl keeps the stored line verbatim")

        let csv = try EventsFixture.modelctl(["events", "export", "--data-dir", data, "--format", "csv"])
        #expect(csv.status == 0, "\(csv.stderr)")
        // CRLF rows (RFC 4180); in Swift "\r\n" is one Character, so split on it, not on "\n".
        let rows = csv.stdout.split(separator: "\r\n").map(String.init)
        #expect(rows.first == "received_at,instance,client_id,batch_id,seq,sdk,name,ts,model_id,outcome,value,props")
        #expect(rows.count == 4)
        #expect(rows.contains { $0.contains(",client-1,x-1,1,2.3,upsell_prompt,2026-11-21T10:00:00Z,m-a,dismissed,1.0,") }, "\(rows)")
        #expect(rows.dropFirst().allSatisfy { $0.hasSuffix(#""{""battery"":0.8,""charging"":true}""#) }, "props quoted per RFC 4180: \(rows)")

        let window = try EventsFixture.modelctl(["events", "export", "--data-dir", data, "--since", Self.today(offsetDays: -1), "--until", Self.today(offsetDays: 1)])
        #expect(jsonLines(window.stdout).count == 3, "\(window.stderr)")
        let future = try EventsFixture.modelctl(["events", "export", "--data-dir", data, "--since", Self.today(offsetDays: 2)])
        #expect(future.status == 0 && future.stdout.isEmpty, "\(future.stdout)\(future.stderr)")
        let past = try EventsFixture.modelctl(["events", "export", "--data-dir", data, "--until", Self.today(offsetDays: -2), "--format", "csv"])
        #expect(past.status == 0 && past.stdout.split(separator: "\n").count == 1, "header only: \(past.stdout)")
        let bad = try EventsFixture.modelctl(["events", "export", "--data-dir", data, "--since", "yesterday"])
        #expect(bad.status == 2, "\(bad.stderr)")
    }

    @Test func shipAndExportFrom_usageErrors_SPEC9_1() throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("ship-usage-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: data) }
        let credentials = ["AWS_ACCESS_KEY_ID": "k", "AWS_SECRET_ACCESS_KEY": "s"]
        let cases: [([String], Int32, String)] = [
            (["events", "export"], 2, "exactly one of --data-dir and --from"),
            (["events", "export", "--data-dir", data, "--from", "s3://bkt"], 2, "exactly one of --data-dir and --from"),
            (["events", "export", "--from", "s3://bkt"], 2, "--from needs --endpoint"),
            (["events", "export", "--from", "b", "--endpoint", "http://127.0.0.1:9"], 2, "expected s3://BUCKET"),
            (["events", "ship", "--data-dir", data, "--to", "s3://bkt"], 2, "--to needs --endpoint"),
            (["events", "ship", "--data-dir", data + "/missing", "--to", "s3://bkt", "--endpoint", "http://127.0.0.1:9"], 1, "does not exist"),
        ]
        for (arguments, status, message) in cases {
            let result = try ChildProcess.run(TestBinaries.modelctl, arguments, environment: credentials)
            #expect(result.status == status && result.stderr.contains(message), "\(arguments): \(result.status) \(result.stderr)")
        }
        // Nothing sealed (no segments) ships nothing and needs no bucket: no request is made.
        let empty = try ChildProcess.run(TestBinaries.modelctl, ["events", "ship", "--data-dir", data, "--to", "s3://bkt", "--endpoint", "http://127.0.0.1:9", "--json"],
                                               environment: credentials)
        #expect(empty.status == 0 && empty.stdout == #"{"shipped":0,"skipped":0,"bytes":0}"# + "\n", "\(empty.stderr)")
    }

    @Test func stats_nameByAndJSON_SPEC7_3() throws {
        let server = try ModeldServer()
        // m-a: 3 of 4 upsell prompts purchased; m-b: 1 of 4; plus "other" events that --name filters out.
        let a = ["purchased", "purchased", "purchased", "dismissed"].map { EventsFixture.event(model: "m-a", outcome: $0) }
        let b = ["purchased", "dismissed", "dismissed", "dismissed"].map { EventsFixture.event(model: "m-b", outcome: $0) }
        let other = (0..<5).map { _ in EventsFixture.event("other", model: "m-a", outcome: "dismissed") }
        #expect(try EventsHTTP.postEvents(server.port, EventsFixture.batch("s-1", events: a + other)).status == 200)
        #expect(try EventsHTTP.postEvents(server.port, EventsFixture.batch("s-2", clientID: "client-2", events: b)).status == 200)
        // A duplicate through the server (stored once) changes nothing.
        #expect(try EventsHTTP.postEvents(server.port, EventsFixture.batch("s-2", clientID: "client-2", events: b)).json["duplicate"] as? Bool == true)

        let result = try EventsFixture.modelctl(["events", "stats", "--data-dir", server.dataDir.path, "--name", "upsell_prompt", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(doc["name"] as? String == "upsell_prompt")
        let groups = try #require(doc["groups"] as? [[String: Any]])
        let ma = try #require(groups.first { $0["key"] as? String == "m-a" })
        let mb = try #require(groups.first { $0["key"] as? String == "m-b" })
        #expect(ma["events"] as? Int == 4 && mb["events"] as? Int == 4)
        let maPurchased = try #require((ma["outcomes"] as? [[String: Any]])?.first { $0["value"] as? String == "purchased" })
        #expect(maPurchased["count"] as? Int == 3)
        #expect(abs((maPurchased["rate"] as? Double ?? 0) - 0.75) < 1e-9)
        let low = maPurchased["ci95_low"] as? Double ?? -1, high = maPurchased["ci95_high"] as? Double ?? -1
        // Wilson 95% for 3/4: [0.3006, 0.9544].
        #expect(abs(low - 0.3006) < 0.001 && abs(high - 0.9544) < 0.001, "\(low) \(high)")

        let all = try EventsFixture.modelctl(["events", "stats", "--data-dir", server.dataDir.path, "--json"])
        let allGroups = try #require((try JSONSerialization.jsonObject(with: Data(all.stdout.utf8)) as? [String: Any])?["groups"] as? [[String: Any]])
        #expect(allGroups.first { $0["key"] as? String == "m-a" }?["events"] as? Int == 9)

        let byName = try EventsFixture.modelctl(["events", "stats", "--data-dir", server.dataDir.path, "--by", "name,outcome", "--json"])
        let byGroups = try #require((try JSONSerialization.jsonObject(with: Data(byName.stdout.utf8)) as? [String: Any])?["groups"] as? [[String: Any]])
        #expect(Set(byGroups.compactMap { $0["key"] as? String }) == ["upsell_prompt", "other"])

        let table = try EventsFixture.modelctl(["events", "stats", "--data-dir", server.dataDir.path, "--name", "upsell_prompt"])
        #expect(table.status == 0)
        #expect(table.stdout.contains("75.00%") && table.stdout.contains("25.00%"), "\(table.stdout)")
        let badBy = try EventsFixture.modelctl(["events", "stats", "--data-dir", server.dataDir.path, "--by", "model_id"])
        #expect(badBy.status == 2)
    }

    @Test func twoInstancesInOneDataDir_exportDedups_andSameInstanceExits2_SPEC5() throws {
        let a = try ModeldServer(environment: ["MODELD_INSTANCE_ID": "replica-a"])
        let b = try ModeldServer(environment: ["MODELD_INSTANCE_ID": "replica-b"], root: a.root)
        let body = EventsFixture.batch("shared-1", clientID: "phone-7", events: [EventsFixture.event(), EventsFixture.event()])
        #expect(try EventsHTTP.postEvents(a.port, body).json["accepted"] as? Int == 2)
        let onB = try EventsHTTP.postEvents(b.port, body)
        #expect(onB.status == 200, "\(onB.text)")
        #expect(try EventsHTTP.postEvents(b.port, EventsFixture.batch("only-b", clientID: "phone-7", events: [EventsFixture.event()])).status == 200)

        let export = try EventsFixture.modelctl(["events", "export", "--data-dir", a.dataDir.path])
        #expect(export.status == 0, "\(export.stderr)")
        let objects = jsonLines(export.stdout)
        #expect(objects.filter { $0["batch_id"] as? String == "shared-1" }.count == 2, "the shared batch once (its 2 events)")
        #expect(objects.filter { $0["batch_id"] as? String == "only-b" }.first?["instance"] as? String == "replica-b")
        let stats = try EventsFixture.modelctl(["events", "stats", "--data-dir", a.dataDir.path, "--json"])
        let groups = (try JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [String: Any])?["groups"] as? [[String: Any]]
        #expect(groups?.first?["events"] as? Int == 3, "\(stats.stdout)")

        // A second process with replica-a's id into the same data dir refuses to start.
        let again = try ChildProcess.run(TestBinaries.modeld, a.arguments,
                                         environment: ["MODELD_INSTANCE_ID": "replica-a", "MODELD_ADMIN_TOKEN": a.token],
                                         directory: a.root, timeout: .seconds(30))
        #expect(again.status == 2, "\(again.stdout)\(again.stderr)")
        #expect((again.stdout + again.stderr).contains("replica-a"))
        #expect(try EventsHTTP.request(a.port, "GET", "/healthz").status == 200, "the running one is untouched")
    }
}

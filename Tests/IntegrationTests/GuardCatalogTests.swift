import ChildProcesses
import Foundation
import Testing

/// The guard on a release through the real `modeld`, `modelctl` and curl (SPEC §11.1, §11.4).
@Suite(.serialized) final class GuardCatalogTests {
    private static let metric = #"{"metric":{"name":"upsell","outcome":"purchased"}"#

    private static func publishPath(_ guardJSON: String, sdkMin: String = "1.0") -> String {
        let encoded = guardJSON.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        return "/admin/models?sdk_min=\(sdkMin)&ext=bin&rollout=80&guard=\(encoded)"
    }

    private func guardOf(_ release: [String: Any]?) -> [String: Any]? { release?["guard"] as? [String: Any] }

    @Test func guardedPublish_curlAndModelctl_startAtFirstStage_andShowTheGuard_SPEC11_1() throws {
        let fx = try CatalogFixture()
        let viaCurl = try fx.curl(Self.publishPath(Self.metric + #","stages":[2,10]}"#, sdkMin: "1.0") + "&sdk_max=5.0",
                                  fx.auth + ["--data-binary", "abc"])
        #expect(viaCurl.status == 201, "\(viaCurl.text)")
        #expect(viaCurl.json?["rollout_percent"] as? Int == 2)
        #expect(guardOf(viaCurl.json)?["status"] as? String == "collecting")
        #expect(guardOf(viaCurl.json)?["stages"] as? [Int] == [2, 10])

        let released = try fx.publish(try fx.randomFile(), sdkMin: "5.0", [
            "--rollout", "50", "--guard-metric", "latency_ms", "--guard-direction", "lower_is_better", "--stages", "1,5",
            "--min-clients-per-arm", "50", "--settle-seconds", "0",
        ])
        #expect(released["rollout_percent"] as? Int == 1)
        let g = try #require(guardOf(released))
        #expect((g["metric"] as? [String: Any])?["kind"] as? String == "mean")
        #expect(g["min_clients_per_arm"] as? Int == 50 && g["started_at"] is String && g["stage_started_at"] is String)
        #expect(g["settle_seconds"] as? Int == 0 && guardOf(viaCurl.json)?["settle_seconds"] as? Int == 14_400)

        // Stored in catalog.json, answered by GET /admin/models/ID, printed by modelctl show.
        let id = try #require(released["id"] as? String)
        let onDisk = try #require((try fx.catalogOnDisk()["releases"] as? [[String: Any]])?.first { $0["id"] as? String == id })
        #expect(guardOf(onDisk)?["goal"] as? String == "guard")
        #expect(guardOf(try fx.curl("/admin/models/\(id)", fx.auth).json)?["status"] as? String == "collecting")
        let show = try fx.modelctl(["show", id])
        #expect(show.status == 0 && show.stdout.contains("guard:") && show.stdout.contains("mean latency_ms lower_is_better"), "\(show.stdout)")
    }

    @Test(arguments: [
        ("{", "guard:"),
        (#"{"metric":{"name":"a","kind":"median"}}"#, "guard.metric.kind"),
        (metric + #","stages":[5,3]}"#, "guard.stages[1]"),
        (metric + #","stages":[10,51]}"#, "guard.stages[1]"),
        (metric + #","settle_seconds":-1}"#, "guard.settle_seconds"),
    ])
    func badGuard_is400NamingTheField_andKeepsNothing_SPEC11_1(json: String, field: String) throws {
        let fx = try CatalogFixture()
        let r = try fx.curl(Self.publishPath(json), fx.auth + ["--data-binary", "abc"])
        #expect(r.status == 400 && r.errorCode == "invalid_parameter", "\(r.status) \(r.text)")
        #expect((r.json?["message"] as? String)?.hasPrefix(field) == true, "\(r.text)")
        #expect((try fx.curl("/admin/models", fx.auth).json?["releases"] as? [Any])?.isEmpty == true)
        #expect(fx.modelsEntries().tmp.isEmpty)
        let cli = try fx.modelctl(["publish", try fx.randomFile().path, "--sdk-min", "1", "--guard", json])
        #expect(cli.status == 2 && cli.stderr.contains(field.hasSuffix(":") ? "guard" : field), "\(cli.stderr)")
    }

    @Test func overlappingRunningGuard_is409_untilAManualChangeStopsIt_SPEC11_4() throws {
        let fx = try CatalogFixture()
        let first = try fx.publish(try fx.randomFile(), sdkMin: "2.0", ["--guard", Self.metric + "}"])
        let id = try #require(first["id"] as? String)
        let clash = try fx.curl(Self.publishPath(Self.metric + "}", sdkMin: "2.5"), fx.auth + ["--data-binary", "abc"])
        #expect(clash.status == 409 && clash.errorCode == "experiment_running", "\(clash.text)")
        let cli = try fx.modelctl(["publish", try fx.randomFile().path, "--sdk-min", "1", "--guard", Self.metric + "}"])
        #expect(cli.status == 1 && cli.stderr.contains("experiment_running"), "\(cli.stderr)")
        // Another channel is a separate experiment.
        #expect(try fx.curl(Self.publishPath(Self.metric + "}") + "&channel=beta", fx.auth + ["--data-binary", "abc"]).status == 201)

        // A label change leaves the guard running; a manual rollout stops it (status stopped).
        #expect(try fx.modelctl(["show", id]).status == 0)
        let label = try fx.curl("/admin/models/\(id)", fx.auth + ["-X", "PATCH", "--data", #"{"label":"x"}"#])
        #expect(guardOf(label.json)?["status"] as? String == "collecting")
        let manual = try fx.modelctl(["rollout", id, "20", "--json"])
        let after = try JSONSerialization.jsonObject(with: Data(manual.stdout.utf8)) as? [String: Any]
        #expect(manual.status == 0 && guardOf(after)?["status"] as? String == "stopped", "\(manual.stdout)\(manual.stderr)")
        #expect(after?["rollout_percent"] as? Int == 20)
        #expect(try fx.curl(Self.publishPath(Self.metric + "}", sdkMin: "2.5"), fx.auth + ["--data-binary", "abc"]).status == 201)
    }

    @Test func patchGuard_startsIt_onlyBelow100_SPEC11_1() throws {
        let fx = try CatalogFixture()
        let partial = try #require(try fx.publish(try fx.randomFile(), ["--rollout", "30"])["id"] as? String)
        let full = try #require(try fx.publish(try fx.randomFile(), sdkMin: "9.0")["id"] as? String)
        let body = #"{"guard":\#(Self.metric),"stages":[5,20]}}"#
        let ok = try fx.curl("/admin/models/\(partial)", fx.auth + ["-X", "PATCH", "--data", body])
        #expect(ok.status == 200 && ok.json?["rollout_percent"] as? Int == 5 && guardOf(ok.json)?["status"] as? String == "collecting", "\(ok.text)")
        let refused = try fx.curl("/admin/models/\(full)", fx.auth + ["-X", "PATCH", "--data", body])
        #expect(refused.status == 400 && refused.errorCode == "invalid_parameter", "\(refused.text)")
        let bad = try fx.curl("/admin/models/\(partial)", fx.auth + ["-X", "PATCH", "--data", #"{"guard":{"metric":{"name":"a","outcome":"b"},"alpha":2}}"#])
        #expect(bad.status == 400 && (bad.json?["message"] as? String)?.hasPrefix("guard.alpha") == true, "\(bad.text)")
    }

    @Test func shippedCatalogWithoutGuards_loadsUnchanged_SPEC11_1() throws {
        let fx = try CatalogFixture(empty: false)
        let before = try Data(contentsOf: fx.server.modelsDir.appendingPathComponent("catalog.json"))
        let releases = try #require(try fx.curl("/admin/models", fx.auth).json?["releases"] as? [[String: Any]])
        #expect(!releases.isEmpty && releases.allSatisfy { $0["guard"] == nil })
        #expect(try Data(contentsOf: fx.server.modelsDir.appendingPathComponent("catalog.json")) == before)
    }

    @Test func offlinePublish_withGuard_startsAtFirstStage_andRefusesAnOverlap_SPEC11_1() throws {
        let fx = try CatalogFixture()
        let dir = fx.scratch.appendingPathComponent("offline-models")
        func publish(_ extra: [String]) throws -> ProcessResult {
            try ChildProcess.run(TestBinaries.modelctl, ["publish", try fx.randomFile().path, "--sdk-min", "2.0", "--models-dir", dir.path,
                                                         "--public-base-url", "http://models.example.test", "--json"] + extra)
        }
        let first = try publish(["--rollout", "90", "--guard-metric", "upsell:purchased", "--stages", "3,30"])
        let release = try JSONSerialization.jsonObject(with: Data(first.stdout.utf8)) as? [String: Any]
        #expect(first.status == 0 && release?["rollout_percent"] as? Int == 3, "\(first.stderr)")
        #expect(guardOf(release)?["stages"] as? [Int] == [3, 30])
        let clash = try publish(["--guard", Self.metric + "}"])
        #expect(clash.status == 1 && clash.stderr.contains("409 experiment_running"), "\(clash.stderr)")
        let bad = try publish(["--guard-metric", "upsell:purchased", "--stages", "3,60"])
        #expect(bad.status == 2 && bad.stderr.contains("guard.stages[1]"), "\(bad.stderr)")
    }
}

import Foundation
import Testing

/// SPEC §11.4: a manual change of `rollout_percent` or `state` stops a running guard and is
/// recorded as exactly one `manual_override` — by whoever applies it (the server's PATCH and
/// DELETE, `modelctl` online and offline), whether or not an evaluator ever saw the guard.
@Suite(.serialized) final class GuardManualOverrideTests {
    static let guardArgs = ["--guard-metric", "upsell:purchased", "--stages", "10,50"]

    private func overrides(_ fx: CatalogFixture, _ id: String) -> [[String: Any]] {
        let text = (try? String(contentsOf: fx.server.dataDir.appendingPathComponent("guard-decisions.jsonl"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .filter { $0["release"] as? String == id && $0["rule"] as? String == "manual_override" }
    }

    private func guardedRelease(_ fx: CatalogFixture, channel: String) throws -> String {
        try #require(try fx.publish(try fx.randomFile(), ["--channel", channel] + Self.guardArgs)["id"] as? String)
    }

    private func statusOf(_ json: [String: Any]?) -> String? { (json?["guard"] as? [String: Any])?["status"] as? String }

    /// The default 60 s interval: no evaluation runs during the test, so every record below
    /// comes from the change itself, with the guard's own figures (no client yet).
    @Test func everyPathRecordsOneOverride_evenBeforeTheFirstEvaluation() throws {
        let fx = try CatalogFixture()
        // modelctl pause at once after the guarded publish, then more changes: still one record.
        let paused = try guardedRelease(fx, channel: "a")
        let pause = try fx.modelctl(["pause", paused, "--json"])
        let pausedJSON = try? JSONSerialization.jsonObject(with: Data(pause.stdout.utf8)) as? [String: Any]
        #expect(pause.status == 0 && statusOf(pausedJSON) == "stopped", "\(pause.stdout)\(pause.stderr)")
        #expect(try fx.modelctl(["resume", paused]).status == 0)
        #expect(try fx.modelctl(["rollout", paused, "30"]).status == 0)
        let records = overrides(fx, paused)
        #expect(records.count == 1, "\(records)")
        let record = try #require(records.first)
        #expect(record["stage"] as? Int == 10 && record["next_stage"] is NSNull)
        let arms = record["arms"] as? [String: [String: Any]]
        #expect(arms?["treatment"]?["clients"] as? Int == 0 && arms?["control"]?["clients"] as? Int == 0 && record["alpha"] as? Double == 0.05,
                "\(record)")
        #expect((record["guard"] as? [String: Any])?["status"] as? String == "stopped")

        // PATCH rollout_percent, PATCH state and DELETE over HTTP; a label change records nothing.
        for (channel, method, body) in [("b", "PATCH", #"{"rollout_percent":25}"#), ("c", "PATCH", #"{"state":"paused"}"#), ("d", "DELETE", "")] {
            let id = try guardedRelease(fx, channel: channel)
            let label = try fx.curl("/admin/models/\(id)", fx.auth + ["-X", "PATCH", "--data", #"{"label":"x"}"#])
            #expect(statusOf(label.json) == "collecting" && overrides(fx, id).isEmpty)
            let changed = try fx.curl("/admin/models/\(id)", fx.auth + ["-X", method] + (body.isEmpty ? [] : ["--data", body]))
            #expect(changed.status == 200 && statusOf(changed.json) == "stopped", "\(method) \(body): \(changed.text)")
            #expect(overrides(fx, id).count == 1, "\(method) \(body)")
        }

        // Offline, straight into the models directory: the same rule, the same one record.
        let offline = try guardedRelease(fx, channel: "e")
        let dirs = ["--models-dir", fx.server.modelsDir.path, "--data-dir", fx.server.dataDir.path]
        let result = try fx.modelctl(["pause", offline, "--json"] + dirs)
        let offlineJSON = try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        #expect(result.status == 0 && statusOf(offlineJSON) == "stopped", "\(result.stdout)\(result.stderr)")
        #expect(try fx.modelctl(["retire", offline] + dirs).status == 0)
        #expect(overrides(fx, offline).count == 1)
        let onDisk = try fx.catalogOnDisk()["releases"] as? [[String: Any]]
        #expect(statusOf(onDisk?.first { $0["id"] as? String == offline }) == "stopped")
        #expect(try fx.modelctl(["pause", offline, "--data-dir", fx.server.dataDir.path]).status == 2, "--data-dir needs --models-dir")
    }

    /// After an evaluation the record carries its figures (from data/guard-state/<id>.json),
    /// and the evaluator, which saw the guard, adds no second record.
    @Test func afterAnEvaluation_theRecordHasItsFigures_andTheEvaluatorAddsNone() throws {
        let fx = try CatalogFixture(environment: ["MODELD_GUARD_INTERVAL_SECONDS": "1"])
        let id = try guardedRelease(fx, channel: "a")
        let state = fx.server.dataDir.appendingPathComponent("guard-state/\(id).json")
        #expect(ModeldServer.eventually(within: 20) { FileManager.default.fileExists(atPath: state.path) })
        let figures = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: state)) as? [String: Any])
        #expect(try fx.modelctl(["rollout", id, "20"]).status == 0)
        // Another guard's first state file means the evaluator has run since the change.
        let next = try guardedRelease(fx, channel: "b")
        #expect(ModeldServer.eventually(within: 20) {
            FileManager.default.fileExists(atPath: fx.server.dataDir.appendingPathComponent("guard-state/\(next).json").path)
        })
        let records = overrides(fx, id)
        #expect(records.count == 1, "\(records)")
        for key in ["arms", "alpha", "tuning_clients"] {
            #expect((records.first?[key] as? NSObject) == (figures[key] as? NSObject), "\(key)")
        }
        let status = try fx.curl("/admin/models/\(id)/guard", fx.auth).json
        #expect(status?["status"] as? String == "stopped")
        #expect((status?["decisions"] as? [[String: Any]])?.last?["rule"] as? String == "manual_override")
    }
}

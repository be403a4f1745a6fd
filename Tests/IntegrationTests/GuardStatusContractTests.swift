import Foundation
import Testing

/// `modelctl experiment status` reads the server's own §11.5 type (issue 19 item 4): a document
/// with every key prints, one that lacks a key the SPEC always writes fails naming the key (exit
/// 1) instead of printing "-".
@Suite(.serialized) final class GuardStatusContractTests {
    @Test func statusOfAFreshGuard_printsThroughTheServer_andAMissingKeyFailsNamingIt_SPEC11_5() throws {
        let fx = try CatalogFixture()
        _ = try fx.publish(try fx.randomFile())
        let guardJSON = #"{"metric":{"name":"upsell","outcome":"purchased"},"stages":[10,50]}"#
        let id = try #require(try fx.publish(try fx.randomFile(), ["--guard", guardJSON])["id"] as? String)

        // Before any evaluation: delta/bound/means are null, evaluated_at absent — all legitimate.
        let text = try fx.modelctl(["experiment", "status", id])
        #expect(text.status == 0 && text.stdout.contains("collecting") && text.stdout.contains("10% for ")
            && text.stdout.contains("evaluated:") && text.stdout.contains("decisions:"), "\(text.stdout)\(text.stderr)")
        let json = try fx.modelctl(["experiment", "status", id, "--json"])
        let document = try fx.curl("/admin/models/\(id)/guard", fx.auth).text
        #expect(json.status == 0 && json.stdout == document + "\n", "\(json.stderr)")
        let show = try fx.modelctl(["show", id])
        #expect(show.status == 0 && show.stdout.contains("figures:") && show.stdout.contains("treatment 0 clients mean -"), "\(show.stdout)\(show.stderr)")

        // The same release read offline from a data directory whose state file (the evaluator's
        // half of the document) lost a key: exit 1 naming it, for status, --json and report.
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("guard-contract-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let stateDir = scratch.appendingPathComponent("guard-state")
        try FileManager.default.createDirectory(at: stateDir, withIntermediateDirectories: true)
        let offline = ["--data-dir", scratch.path, "--models-dir", fx.server.modelsDir.path]
        let arms = #""arms":{"treatment":{"clients":3,"mean":0.5,"variance":0.25},"control":{"clients":4,"mean":0.25,"variance":0.1875}}"#
        let cases: [(state: String, missing: String)] = [
            (#"{"evaluated_at":"2026-11-21T10:00:00.000Z","pending_clients":0,\#(arms),"delta":0.25,"bound":1.5,"alpha":0.05}"#, "tuning_clients"),
            (#"{"pending_clients":0,"arms":{"treatment":{"clients":3,"mean":0.5,"variance":0.25}},"delta":null,"bound":null,"alpha":0.05,"tuning_clients":1000}"#, "arms.control"),
            (#"{"pending_clients":0,"arms":{"treatment":{"clients":3,"variance":0.25},"control":{"clients":4,"mean":null,"variance":null}},"delta":null,"bound":null,"alpha":0.05,"tuning_clients":1000}"#, "arms.treatment.mean"),
        ]
        for c in cases {
            try Data(c.state.utf8).write(to: stateDir.appendingPathComponent("\(id.lowercased()).json"))
            for command in [["experiment", "status", id], ["experiment", "status", id, "--json"], ["experiment", "report", id]] {
                let run = try fx.modelctl(command + offline)
                #expect(run.status == 1 && (run.stderr.contains("missing key \(c.missing)") || run.stderr.contains("\(c.missing) is missing")),
                        "\(command) \(c.missing): \(run.status) \(run.stderr)")
                #expect(run.stdout.isEmpty, "\(run.stdout)")
            }
        }
        // The complete document from the same files prints.
        try Data(#"{"evaluated_at":"2026-11-21T10:00:00.000Z","pending_clients":2,\#(arms),"delta":0.25,"bound":1.5,"alpha":0.05,"tuning_clients":1000}"#.utf8)
            .write(to: stateDir.appendingPathComponent("\(id.lowercased()).json"))
        let whole = try fx.modelctl(["experiment", "status", id] + offline)
        #expect(whole.status == 0 && whole.stdout.contains("0.2500 ± 1.5000") && whole.stdout.contains("2 clients"), "\(whole.stdout)\(whole.stderr)")
    }
}

import ChildProcesses
import Foundation
import Testing

/// SPEC §7 (v6): a numeric option takes a negative value as written (`--effect -0.1`) in every
/// command of both CLIs, as the real binaries parse it; a value that is genuinely missing is
/// still the usage error (exit 2), and a negative value an option refuses is refused by its own
/// rule, not reported missing.
@Suite struct NegativeNumberCLITests {
    static func modelctl(_ arguments: [String]) throws -> ProcessResult {
        try ChildProcess.run(TestBinaries.modelctl, arguments, timeout: .seconds(120))
    }

    @Test func modelctl_takesNegativeNumbers_asWritten() throws {
        let simulate = ["experiment", "simulate", "--plan", SimulateCLITests.plan, "--runs", "1", "--seed", "3", "--json"] + SimulateCLITests.small
        let worse = try Self.modelctl(simulate + ["--effect", "-0.1"])
        #expect(worse.status == 0, "\(worse.stderr)")
        let attached = try Self.modelctl(simulate + ["--effect=-0.1"])
        #expect(worse.stdout == attached.stdout && !worse.stdout.isEmpty, "the two spellings are one value")
        #expect(worse.stdout != (try Self.modelctl(simulate + ["--effect", "0.1"])).stdout)

        // Negative values refused by the options' own rules, not as missing values.
        let rate = try Self.modelctl(["experiment", "simulate", "--plan", SimulateCLITests.plan, "--control-rate", "-0.3"])
        #expect(rate.status == 2 && !rate.stderr.contains("Missing value") && rate.stderr.contains("control-rate"), "\(rate.stderr)")
        let downloads = try Self.modelctl(["cost", "estimate", "--downloads", "-5", "--size", "1MB"])
        #expect(downloads.status == 2 && downloads.stderr.contains("--downloads must be a whole number ≥ 0, not '-5'"), "\(downloads.stderr)")

        // A value that is not there is still the usage error.
        for missing in [["experiment", "simulate", "--plan", SimulateCLITests.plan, "--control-rate", "0.3", "--effect"],
                        ["experiment", "simulate", "--plan", SimulateCLITests.plan, "--effect", "--control-rate", "0.3"]] {
            let r = try Self.modelctl(missing)
            #expect(r.status == 2 && r.stderr.contains("Missing value for '--effect"), "\(missing): \(r.stderr)")
        }
    }

    @Test func modeldClient_takesNegativeNumbers_asWritten() throws {
        let fx = try ClientFixture()
        let published = try fx.publish(size: 1000)
        #expect(try fx.client(["update"]).status == 0)
        let recorded = try fx.client(["record", "--name", "loss", "--value", "-2.5"])
        #expect(recorded.status == 0, "\(recorded.stderr)")
        let flushed = try fx.client(["flush"])
        #expect(flushed.status == 0, "\(flushed.stderr)")
        let export = try ChildProcess.run(TestBinaries.modelctl, ["events", "export", "--data-dir", fx.server.dataDir.path])
        let events = export.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let loss = events.filter { $0["name"] as? String == "loss" }
        #expect(loss.count == 1 && loss.first?["value"] as? Double == -2.5 && loss.first?["model_id"] as? String == published.id, "\(loss)")

        let maxBytes = try fx.client(["--max-bytes", "-1", "status"])
        #expect(maxBytes.status == 2 && maxBytes.stderr.contains("--max-bytes must be ≥ 0, got -1"), "\(maxBytes.stderr)")
        let missing = try fx.client(["record", "--name", "loss", "--value"])
        #expect(missing.status == 2 && missing.stderr.contains("Missing value for '--value"), "\(missing.stderr)")
    }
}

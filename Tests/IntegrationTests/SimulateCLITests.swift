import ChildProcesses
import Foundation
import Testing

/// `modelctl experiment simulate` as the real binary (SPEC §11.6): the `--json` shape, the text
/// form, a release's own guard through the server, and usage errors (exit 2 naming the flag).
@Suite struct SimulateCLITests {
    /// Two stages of a day, cohorts settling for a day (daily app use, docs/guardrails.md).
    static let plan = #"{"metric":{"name":"upsell_prompt","outcome":"purchased"},"stages":[10,50],"min_clients_per_arm":50,"settle_seconds":86400}"#
    /// A small fleet: a few seconds in a debug build.
    static let small = ["--clients", "5000", "--days", "3", "--control-rate", "0.3"]

    static func simulate(_ arguments: [String]) throws -> ProcessResult {
        try ChildProcess.run(TestBinaries.modelctl, ["experiment", "simulate"] + arguments, timeout: .seconds(120))
    }

    @Test func json_hasTheSPECShape_andRepeatsBySeed_SPEC11_6() throws {
        let r = try Self.simulate(["--plan", Self.plan, "--runs", "2", "--seed", "9", "--json"] + Self.small)
        #expect(r.status == 0, "\(r.stderr)")
        let object = try #require(JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        #expect(Set(object.keys) == ["runs", "outcomes", "srm_decisions", "hours_to_full", "runs_detail"])
        #expect(object["runs"] as? Int == 2)
        let outcomes = try #require(object["outcomes"] as? [String: Int])
        #expect(Set(outcomes.keys) == ["promoted", "paused", "srm", "inconclusive", "no_data", "running"])
        #expect(outcomes.values.reduce(0, +) == 2)
        let hours = try #require(object["hours_to_full"] as? [String: Any])
        #expect(Set(hours.keys) == ["p50", "p90"])
        let detail = try #require(object["runs_detail"] as? [[String: Any]])
        #expect(detail.map { $0["seed"] as? Int } == [9, 10])
        for run in detail {
            #expect(Set(run.keys) == ["seed", "status", "decisions"])
            let decisions = try #require(run["decisions"] as? [[String: Any]])
            // Three days of one-day soaks: the advance to 50 and the promotion.
            #expect(decisions.count >= 2, "\(run)")
            for d in decisions {
                #expect(Set(d.keys).isSuperset(of: ["ts", "release", "rule", "stage", "next_stage", "arms", "delta", "bound", "alpha", "tuning_clients", "srm", "guard"]))
                #expect((d["ts"] as? String)?.hasPrefix("2026-01-0") == true, "\(d)")
            }
        }
        #expect(try Self.simulate(["--plan", Self.plan, "--runs", "2", "--seed", "9", "--json"] + Self.small).stdout == r.stdout)
    }

    @Test func text_showsStagesDecisionsAndShares_SPEC11_6() throws {
        let r = try Self.simulate(["--plan", Self.plan] + Self.small)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("run 1 (seed 1): ") && r.stdout.contains("  stage 10 % from 2026-01-01T00:00:00.000Z")
            && r.stdout.contains(#""rule":"advance""#) && r.stdout.contains("1 run: promoted ")
            && r.stdout.contains("runs with an srm decision: ") && r.stdout.contains("hours to 100 %: "), "\(r.stdout)")
    }

    @Test(arguments: [
        (["--clients", "0", "--control-rate", "0.1"], "--clients"),
        (["--days", "400", "--control-rate", "0.1"], "--days"),
        (["--poll-hours", "0", "--control-rate", "0.1"], "--poll-hours"),
        (["--daily-active", "2", "--control-rate", "0.1"], "--daily-active"),
        (["--control-rate", "0.1", "--effect", "-0.5"], "--effect"),
        (["--runs", "0", "--control-rate", "0.1"], "--runs"),
        ([], "--control-rate"),
        (["--control-mean", "3"], "--sd"),
        (["--control-mean", "3", "--sd", "1"], "--control-rate"),  // the plan's metric is a rate
    ])
    func badFlags_exit2NamingTheFlag(extra: [String], named: String) throws {
        let r = try Self.simulate(["--plan", Self.plan, "--clients", "100", "--days", "1"] + extra)
        #expect(r.status == 2 && r.stderr.contains(named), "\(r.status) \(r.stderr)")
    }

    @Test func planOrRelease_exactlyOne_andABadPlanNamesItsField() throws {
        let neither = try Self.simulate(["--control-rate", "0.1"])
        #expect(neither.status == 2 && neither.stderr.contains("--plan"), "\(neither.stderr)")
        let both = try Self.simulate(["--plan", Self.plan, "--release", "3a7c0e52-9d41-4f8b-b6e2-1c5d7a9f0b34", "--control-rate", "0.1"])
        #expect(both.status == 2, "\(both.stderr)")
        let bad = try Self.simulate(["--plan", #"{"metric":{"name":"m","outcome":"o"},"stages":[5,1]}"#, "--control-rate", "0.1"])
        #expect(bad.status == 2 && bad.stderr.contains("guard.stages[1]"), "\(bad.stderr)")
    }

    /// `--release ID` simulates the guard the release carries, read through the server: its
    /// stages and id appear in the records.
    @Test func release_simulatesItsOwnGuardThroughTheServer() throws {
        let fx = try CatalogFixture()
        _ = try fx.publish(try fx.randomFile())
        let guardJSON = #"{"metric":{"name":"upsell_prompt","outcome":"purchased"},"stages":[20,40],"min_clients_per_arm":50,"settle_seconds":86400}"#
        let id = try #require(try fx.publish(try fx.randomFile(), ["--guard", guardJSON])["id"] as? String)
        let r = try fx.modelctl(["experiment", "simulate", "--release", id, "--json"] + Self.small)
        #expect(r.status == 0, "\(r.stderr)")
        let object = try #require(JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let run = try #require((object["runs_detail"] as? [[String: Any]])?.first)
        let decisions = try #require(run["decisions"] as? [[String: Any]])
        #expect(decisions.first?["release"] as? String == id && decisions.first?["stage"] as? Int == 20, "\(decisions)")
        #expect(decisions.contains { $0["rule"] as? String == "advance" && $0["next_stage"] as? Int == 40 }, "\(decisions)")
        let unguarded = try #require(try fx.publish(try fx.randomFile())["id"] as? String)
        let none = try fx.modelctl(["experiment", "simulate", "--release", unguarded] + Self.small)
        #expect(none.status == 1 && none.stderr.contains("no guard"), "\(none.stderr)")
    }
}

import Foundation
import GuardRuntime
import Guardrails
import Testing

/// `ArmRule.record`, the rule the evaluator and the simulator share (docs/decisions/srm-counting.md):
/// a client joins the SRM test at its first batch of the channel received after its cohort's
/// stage began, whatever model it ran; its events count for the other decisions by SPEC
/// §11.2's model rule.
@Suite struct SRMCountingTests {
    static let t0: Int64 = 1_700_000_000_000
    static let hour: Int64 = 3_600_000
    /// Stages [10, 50]: the guard began at t0, stage 50 at t0 + 1 h.
    static let plan = try! GuardPlan(metric: .init(name: "m", outcome: "o"), stages: [10, 50], minStageSeconds: 600, settleSeconds: 60,
                                     runtime: .init(status: .healthy, startedAt: t0, stageStartedAt: t0 + hour))

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let bucket: Int
        /// What the events ran: the challenger, another release of the channel, or neither.
        let onChallenger: Bool, onOtherRelease: Bool
        let events: UInt32
        /// Received this long after t0.
        let after: Int64
        let inSRM: Bool, counted: Bool
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "new treatment cohort, first batch after the advance, still on the baseline: in the SRM test, pending otherwise",
             bucket: 20, onChallenger: false, onOtherRelease: true, events: 3, after: hour + 1, inSRM: true, counted: false),
        Case(name: "new treatment cohort on the challenger", bucket: 20, onChallenger: true, onOtherRelease: false, events: 3, after: hour + 1, inSRM: true, counted: true),
        Case(name: "new control cohort", bucket: 60, onChallenger: false, onOtherRelease: true, events: 3, after: 2 * hour, inSRM: true, counted: true),
        Case(name: "a batch received before its cohort's stage began (read late) does not join", bucket: 20, onChallenger: false, onOtherRelease: true,
             events: 3, after: hour - 1, inSRM: false, counted: false),
        Case(name: "nor for control, whose events count", bucket: 60, onChallenger: false, onOtherRelease: true, events: 3, after: hour - 1, inSRM: false, counted: true),
        Case(name: "first cohort joins from the guard's start", bucket: 5, onChallenger: true, onOtherRelease: false, events: 1, after: 0, inSRM: true, counted: true),
        Case(name: "events without a value join, count nowhere else", bucket: 95, onChallenger: false, onOtherRelease: true, events: 0, after: 1, inSRM: true, counted: false),
        Case(name: "another channel's model: nothing", bucket: 95, onChallenger: false, onOtherRelease: false, events: 3, after: 2 * hour, inSRM: false, counted: false),
    ]

    @Test(arguments: cases)
    func record(_ c: Case) throws {
        var arms = GuardAccumulator()
        var tally = try #require(ArmRule.entering(bucket: c.bucket, percent: 50, plan: Self.plan))
        let counted = ArmRule.record(events: c.events, total: 1, onChallenger: c.onChallenger, onOtherRelease: c.onOtherRelease,
                                     receivedAt: Self.t0 + c.after, stage: 50, plan: Self.plan, into: &tally, arms: &arms)
        #expect(tally.inSRM == c.inSRM && counted == c.counted)
        #expect(arms.clients(tally.arm, cohorts: 2) == (c.inSRM ? 1 : 0) && arms[tally.arm].clients == (c.counted ? 1 : 0))
    }

    /// A client joins the SRM test once, however many batches follow.
    @Test func joinsOnce() {
        var arms = GuardAccumulator()
        var tally = ClientTally(arm: .control, cohort: 1)
        for k in 0..<3 {
            ArmRule.record(events: 1, total: 0, onChallenger: false, onOtherRelease: true, receivedAt: Self.t0 + 2 * Self.hour + Int64(k),
                           stage: 50, plan: Self.plan, into: &tally, arms: &arms)
        }
        #expect(arms.clients(.control, cohorts: 2) == 1 && tally.events == 3)
    }
}

/// The SRM test's running minimum survives a restart of the evaluator (or a change of the
/// replica evaluating) through the state file (docs/decisions/srm-sequential.md).
@Suite struct SRMPValueStateTests {
    @Test func stateFile_givesBackTheRunningMinimum_ofThisGuardOnly() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("srm-state-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let records = GuardRecords(dataDir: dir)
        let t0 = SRMCountingTests.t0, plan = SRMCountingTests.plan
        #expect(records.srmPValue(releaseID: "r1", guardStartedAt: t0) == nil, "no file yet")
        let arms = GuardAccumulator(treatment: ArmStats(clients: 1_100), control: ArmStats(clients: 1_000))
        let figures = GuardEngine.evaluate(plan, stage: 50, arms: arms, now: t0 + 1, srmPValue: 0.000_5).figures
        try records.writeState("R1", GuardRecords.state(figures: figures, pendingClients: 0, at: t0 + 1))
        #expect(records.srmPValue(releaseID: "r1", guardStartedAt: t0) == 0.000_5)
        #expect(records.srmPValue(releaseID: "r1", guardStartedAt: t0 + 2) == nil, "a later guard of the release starts afresh")
        #expect(records.srmPValue(releaseID: "r1", guardStartedAt: nil) == nil)
    }
}

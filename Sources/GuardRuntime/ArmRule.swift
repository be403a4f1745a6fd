import Guardrails
import ReleaseSelection

/// SPEC §11.2's arm rule for one client, apart from how its events arrive: the evaluator
/// (`GuardExperiment`, fed stored events) and the fleet simulator (`GuardSimulation`, fed
/// virtual ones) both decide with it.
public enum ArmRule {
    /// A client not in an arm yet, at stage `percent`: its arm and cohort, nil when its bucket is
    /// in neither range (its events are pending).
    public static func entering(bucket: Int, percent: Int, plan: GuardPlan) -> ClientTally? {
        let arm: Arm? = switch ReleaseSelector.arm(bucket: bucket, percent: percent) {
        case .treatment: .treatment
        case .control: .control
        case nil: nil
        }
        return arm.map { ClientTally(arm: $0, cohort: plan.cohort(bucket: bucket, arm: $0)) }
    }

    /// Whether an event of a client in `arm` counts: a treatment client's when it ran the
    /// challenger, a control client's when it ran another release of the channel.
    public static func counts(_ arm: Arm, onChallenger: Bool, onOtherRelease: Bool) -> Bool {
        arm == .treatment ? onChallenger : onOtherRelease
    }

    /// `events` events of one client that ran one model (their observations summing to `total`;
    /// 0 events when none had a value), from a batch the server received at `receivedAt` (ms)
    /// while the release was at `stage`. The SRM test counts the client from its first batch of
    /// the channel received after its cohort's stage began, whatever model the events ran: for
    /// treatment that is the batch riding on the check that serves it the challenger, so both
    /// arms join at their first check (docs/decisions/srm-counting.md). Regression and readiness
    /// count the events by `counts`. Returns whether they counted there.
    @discardableResult
    public static func record(events: UInt32, total: Double, onChallenger: Bool, onOtherRelease: Bool, receivedAt: Int64,
                              stage: Int, plan: GuardPlan, into tally: inout ClientTally, arms: inout GuardAccumulator) -> Bool {
        guard onChallenger || onOtherRelease else { return false }
        if receivedAt >= plan.cohortBegan(Int(tally.cohort), stage: stage, now: receivedAt) { arms.enterSRM(&tally) }
        guard events > 0, counts(tally.arm, onChallenger: onChallenger, onOtherRelease: onOtherRelease) else { return false }
        arms.record(events: events, total: total, into: &tally)
        return true
    }
}

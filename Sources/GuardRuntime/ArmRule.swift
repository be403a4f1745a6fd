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
}

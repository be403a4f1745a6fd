import CivilTime
import GuardRuntime
import Guardrails
import Randomness
import ReleaseSelection

/// One run of SPEC §11.6: a fleet in virtual time driving the evaluator's own rules — the arm
/// and cohort rule (`ArmRule`), the accumulator and the engine — exactly as the evaluator does
/// between its looks, and applying each decision as the catalog would (`applyGuardDecision`).
/// Virtual time reaches the engine as its `now` argument: milliseconds from `SimulationClock.epoch`.
public struct FleetSimulation {
    /// The engine looks every `evaluationSeconds` of virtual time: `guard_interval_seconds`'
    /// default (SPEC §11.4), so decisions land on the minute they would in production.
    public static let evaluationSeconds = 60
    /// The release id of a simulation from `--plan` (it only salts the buckets).
    public static let planReleaseID = "simulated"

    public let plan: GuardPlan
    public let fleet: FleetModel
    public let releaseID: String

    public init(plan: GuardPlan, fleet: FleetModel, releaseID: String = FleetSimulation.planReleaseID) {
        self.plan = plan
        self.fleet = fleet
        self.releaseID = releaseID
    }

    /// `count` runs, run r with seed `seed + r`, so any run replays alone from its own seed.
    public func summary(runs count: Int, seed: UInt64) -> SimulationSummary {
        SimulationSummary(runs: (0..<count).map { run(seed: seed &+ UInt64($0)) })
    }

    /// Run `seed`: the same seed gives the same run, byte for byte.
    public func run(seed: UInt64) -> SimulatedRun {
        var random = SeededRandom(seed: seed)
        var clients = Fleet(clients: fleet.clients, releaseID: releaseID, runSeed: seed)
        let seconds = fleet.days * 86_400
        var calendar = EventCalendar(seconds: seconds, slotSeconds: Self.evaluationSeconds)
        let slotsPerDay = 86_400 / Self.evaluationSeconds
        let pollSeconds = fleet.pollHours * 3600
        let downloadSeconds = fleet.downloadMinutes * 60
        var guardPlan = plan
        guardPlan.runtime = GuardPlan.Runtime(status: .collecting, startedAt: SimulationClock.epoch, stageStartedAt: SimulationClock.epoch)
        var release = ReleaseState(stage: plan.stages[0])
        var arms = GuardAccumulator()
        // The SRM test's running minimum, carried from look to look as the evaluator carries it.
        var srmPValue: Double?
        var result = SimulatedRun(seed: seed, firstStage: plan.stages[0])

        for i in 0..<fleet.clients {
            calendar.schedule(.init(.check, client: i, at: Self.seconds(random.exponential(mean: pollSeconds))))
        }
        for slot in 0..<calendar.slotCount {
            if slot % slotsPerDay == 0 { scheduleUses(day: slot / slotsPerDay, &calendar, &random) }
            for entry in calendar.take(slot: slot) {
                let i = entry.client, t = entry.seconds
                switch entry.kind {
                case .check:
                    // The batch rides on the check, so the server receives it now (FleetModel docs).
                    deliver(i, at: t, &clients, release: release, plan: guardPlan, arms: &arms)
                    let served = release.serves(bucket: Int(clients.buckets[i]))
                    clients.check(i, at: t, served: served) { random.lognormal(median: downloadSeconds, sigma: FleetModel.downloadSigma) }
                    // The answer cannot change before the next look: later checks in this slot are no-ops.
                    var next = Double(t) + random.exponential(mean: pollSeconds)
                    while calendar.slot(of: Self.seconds(next)) == slot { next += random.exponential(mean: pollSeconds) }
                    calendar.schedule(.init(.check, client: i, at: Self.seconds(next)))
                case .use:
                    let model = clients.model(i, at: t)
                    guard let x = fleet.observe(guardPlan.metric, onChallenger: model == .challenger, &random) else { continue }
                    clients.queue(i, ran: model, observation: x)
                }
            }
            let now = SimulationClock.epoch + Int64((slot + 1) * Self.evaluationSeconds) * 1000
            let evaluation = GuardEngine.evaluate(guardPlan, stage: release.stage, arms: arms, now: now, srmPValue: srmPValue)
            srmPValue = evaluation.figures.srm.pValue
            result.finalStatus = evaluation.status
            if let decision = evaluation.decision {
                guardPlan.runtime = guardPlan.runtime.recording(evaluation, at: now)
                release.apply(decision)
                result.record(decision, at: now,
                              line: GuardRecords.decision(decision, releaseID: releaseID, plan: guardPlan, figures: evaluation.figures, at: now))
            }
            if guardPlan.isFinished { break }
        }
        result.finish(plan: guardPlan)
        return result
    }

    /// Client `i`'s queued events reach the evaluator at virtual second `t`, as one batch
    /// through the evaluator's own rule (`ArmRule`): a client outside both arms is pending, and
    /// its events are dropped.
    private func deliver(_ i: Int, at t: UInt32, _ clients: inout Fleet, release: ReleaseState, plan: GuardPlan, arms: inout GuardAccumulator) {
        let baseline = clients.takeBatch(i, ran: .baseline), challenger = clients.takeBatch(i, ran: .challenger)
        guard baseline.events + challenger.events > 0, !losesReports(i, bucket: Int(clients.buckets[i]), stage: release.stage),
              var tally = clients.tallies[i] ?? ArmRule.entering(bucket: Int(clients.buckets[i]), percent: release.stage, plan: plan)
        else { return }
        let receivedAt = SimulationClock.epoch + Int64(t) * 1000
        func record(_ part: (events: UInt32, total: Double), onChallenger: Bool) {
            guard part.events > 0 else { return }
            ArmRule.record(events: part.events, total: part.total, onChallenger: onChallenger, onOtherRelease: !onChallenger,
                           receivedAt: receivedAt, stage: release.stage, plan: plan, into: &tally, arms: &arms)
        }
        record(baseline, onChallenger: false)
        record(challenger, onChallenger: true)
        if tally.inSRM || tally.events > 0 { clients.tallies[i] = tally }
    }

    /// Whether client `i`'s batches are lost (`FleetModel.lostTreatmentReporters`): a treatment
    /// client whose own uniform draw, a hash of its index, falls below the share.
    private func losesReports(_ i: Int, bucket: Int, stage: Int) -> Bool {
        guard fleet.lostTreatmentReporters > 0, ReleaseSelector.arm(bucket: bucket, percent: stage) == .treatment else { return false }
        let draw = Double(((UInt64(i) &+ 1) &* 0x9E37_79B9_7F4A_7C15) >> 11) / 9_007_199_254_740_992
        return draw < fleet.lostTreatmentReporters
    }

    /// Day `day`'s uses: each client is active with probability `dailyActive` and then makes
    /// ⌊E⌋ events, one more with probability E − ⌊E⌋, at uniform times of the day.
    private func scheduleUses(day: Int, _ calendar: inout EventCalendar, _ random: inout SeededRandom) {
        let start = Double(day * 86_400)
        let whole = Int(fleet.eventsPerDay), fraction = fleet.eventsPerDay - Double(whole)
        for i in 0..<fleet.clients where random.uniform() < fleet.dailyActive {
            let count = whole + (random.uniform() < fraction ? 1 : 0)
            for _ in 0..<count {
                calendar.schedule(.init(.use, client: i, at: Self.seconds(start + random.uniform() * 86_400)))
            }
        }
    }

    /// Virtual seconds as the calendar keeps them (beyond its horizon, which it drops).
    private static func seconds(_ t: Double) -> UInt32 { UInt32(min(t, Double(UInt32.max))) }
}

/// Where virtual time starts: SPEC §11.6's 2026-01-01T00:00:00Z, in the engine's unit.
public enum SimulationClock {
    public static let epoch: Int64 = CivilDate(year: 2026, month: 1, day: 1).daysSinceEpoch * 86_400_000
}

/// The simulated release as the catalog would hold it: its stage and whether its guard paused it.
struct ReleaseState {
    var stage: Int
    var paused = false

    /// What an update check answers (SPEC §3, §11.2): the challenger inside its rollout bucket
    /// range while it is active, the baseline otherwise.
    func serves(bucket: Int) -> Fleet.Model {
        !paused && ReleaseSelector.arm(bucket: bucket, percent: stage) == .treatment ? .challenger : .baseline
    }

    /// `Catalog.applyGuardDecision`'s effect: the next stage (or 100), a pause.
    mutating func apply(_ decision: GuardDecision) {
        if let next = decision.nextStage { stage = next }
        if decision.pausesRelease { paused = true }
    }
}

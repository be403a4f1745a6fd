#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
@testable import Guardrails
import TestRandomness

/// A guard watched continuously, as the evaluator will watch it: clients join both arms, and
/// after every look a rule reads the same `GuardAccumulator` the evaluator fills and says
/// whether the guard acts. Runs are seeded and independent, so every rate is reproducible.
struct Monitoring {
    let runs: Int
    let looks: Int
    let seed: UInt64

    /// For every rule, for every run, the first look (1-based) at which the rule acted; nil if
    /// it never did. All rules watch the same clients; a run ends once every rule has acted.
    /// `grow` adds one look's clients to the state it is handed.
    func firstActions<State>(
        start: () -> State, grow: (inout SeededRandom, inout State) -> Void, rules: [(State) -> Bool]
    ) -> [[Int?]] {
        var firsts = [[Int?]](repeating: [], count: rules.count)
        for run in 0..<runs {
            var random = SeededRandom(seed: seed, run: run)
            var state = start()
            var acted = [Int?](repeating: nil, count: rules.count)
            for look in 1...looks where acted.contains(nil) {
                grow(&random, &state)
                for (i, rule) in rules.enumerated() where acted[i] == nil && rule(state) { acted[i] = look }
            }
            for i in rules.indices { firsts[i].append(acted[i]) }
        }
        return firsts
    }

    /// Bernoulli clients, `perLook` per arm per look: by sufficiency a look adds (n, Σx, Σx²) =
    /// (perLook, k, k) with k ~ Binomial(perLook, p) — the exact distribution of the sums
    /// 250 separate 0/1 clients would give, at a tiny fraction of the draws.
    static func bernoulliLook(perLook: Int, treatment pT: Double, control pC: Double) -> (inout SeededRandom, inout GuardAccumulator) -> Void {
        { random, arms in
            let kT = Double(random.binomial(perLook, pT)), kC = Double(random.binomial(perLook, pC))
            arms.add(clients: perLook, sum: kT, sumOfSquares: kT, to: .treatment)
            arms.add(clients: perLook, sum: kC, sumOfSquares: kC, to: .control)
        }
    }
}

/// The rules a harness can be asked to run.
enum Rule {
    /// The real decision function: does it pause the release now? (At the first stage, which
    /// never soaks in a simulation, so only the statistics can act.)
    static func guardPauses(_ plan: GuardPlan) -> (GuardAccumulator) -> Bool {
        { arms in GuardEngine.evaluate(plan, stage: plan.stages[0], arms: arms, now: 0).decision?.rule == .pause }
    }

    /// What the guard no longer does: SPEC §11.3's fixed-horizon χ² SRM test (p < 0.001 and ≥ 1
    /// point off ½) re-run at every look.
    static func chiSquaredFlagsSRM(_ arms: GuardAccumulator) -> Bool {
        let t = Double(arms.treatment.clients), c = Double(arms.control.clients)
        guard t + c > 0 else { return false }
        let p = erfc(((t - c) * (t - c) / (t + c) / 2).squareRoot())
        return p < 0.001 && abs(t / (t + c) - 0.5) >= 0.01
    }

    /// What a guard must not do: a fixed-horizon one-sided z-test (z < −1.645) re-run at every
    /// look. It reads the same sums after the same minimum; only the bound differs.
    static func naiveZPauses(minClientsPerArm: Int) -> (GuardAccumulator) -> Bool {
        { arms in
            let t = arms.treatment, c = arms.control
            guard t.clients >= minClientsPerArm, c.clients >= minClientsPerArm,
                  let mT = t.mean, let mC = c.mean, let vT = t.variance, let vC = c.variance else { return false }
            let se = (vT / Double(t.clients) + vC / Double(c.clients)).squareRoot()
            return se > 0 && (mT - mC) / se < -1.6448536269514722
        }
    }
}

extension GuardPlan {
    /// The simulations' guard: a rate metric at its first stage with the clock never moving.
    static func simulated(tuningClients: Int = 20_000, minClientsPerArm: Int = 1_000) -> GuardPlan {
        try! GuardPlan(
            metric: .init(name: "upsell", outcome: "purchased"), minClientsPerArm: minClientsPerArm,
            tuningClients: tuningClients, settleSeconds: 0, runtime: .init(startedAt: 0, stageStartedAt: 0))
    }
}

/// A measured proportion with its binomial standard error, for messages and the report.
struct Rate: CustomStringConvertible {
    let hits: Int
    let runs: Int
    var value: Double { Double(hits) / Double(runs) }
    var standardError: Double { (value * (1 - value) / Double(runs)).squareRoot() }
    var description: String {
        let pct = (value * 10_000).rounded() / 100, se = (standardError * 10_000).rounded() / 100
        return "\(pct) % (\(hits)/\(runs), SE \(se) %)"
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Sample ratio mismatch (SPEC §11.3): are the clients in the SRM test split 1:1 as assignment
/// says? A challenger that crashes or never reports loses reporting clients; this notices.
///
/// The SPEC names a χ² test; the guard looks every minute for days, and a χ² test re-run at
/// every look raises false alarms in about 1–2 % of A/A rollouts. This is the anytime-valid
/// test of Lindon, Semmens & Gotwalt (2022), as Optimizely's `ssrm-test` and GrowthBook use it:
/// the Bayes factor of "any split" (a Dirichlet prior around 1:1) against 1:1, whose inverse
/// may be looked at as often as one likes (docs/decisions/srm-sequential.md).
public enum SampleRatio {
    /// How tightly the prior on the treatment share concentrates around ½ (the prior is
    /// Dirichlet(c/2, c/2)): the reference implementations' default.
    public static let concentration = 10_000.0
    /// The SPEC's significance level for SRM.
    public static let significance = 0.001
    /// The SPEC's floor on |n_T/(n_T + n_C) − ½|: at millions of clients a 50.2/49.8 split is
    /// "significant" yet harmless (mozilla/experimenter #16011).
    public static let minimumDeviation = 0.01

    /// ln BF of the counts: ln B(a + n_T, a + n_C) − ln B(a, a) + N ln 2 with a = c/2, the
    /// Dirichlet-multinomial likelihood over the multinomial one at ½ (their multinomial
    /// coefficients cancel, so it depends only on the cumulative counts, not on how they grew).
    public static func logBayesFactor(treatment: Int, control: Int) -> Double {
        let a = concentration / 2, t = Double(treatment), c = Double(control)
        return logGamma(a + t) + logGamma(a + c) - logGamma(2 * a + t + c)
            - (2 * logGamma(a) - logGamma(2 * a)) + (t + c) * log(2.0)
    }

    /// The anytime-valid p-value after this look: min(1, 1/BF, `previous`), the running minimum
    /// over every look so far (`previous`: nil before the first). Nil while nobody is counted.
    public static func pValue(treatment: Int, control: Int, previous: Double?) -> Double? {
        guard treatment + control > 0 else { return previous }
        return min(previous ?? 1, exp(-logBayesFactor(treatment: treatment, control: control)))
    }

    /// Flagged when the sequential p-value is below `significance` and the split now is at
    /// least `minimumDeviation` off ½.
    public static func isMismatch(pValue: Double?, treatment: Int, control: Int) -> Bool {
        guard let pValue, treatment + control > 0 else { return false }
        let share = Double(treatment) / (Double(treatment) + Double(control))
        return pValue < significance && abs(share - 0.5) >= minimumDeviation
    }

    /// ln Γ(x) for x > 0 through the reentrant `lgamma_r` (plain `lgamma` writes a global sign).
    private static func logGamma(_ x: Double) -> Double {
        var sign: Int32 = 0
        return lgamma_r(x, &sign)
    }
}

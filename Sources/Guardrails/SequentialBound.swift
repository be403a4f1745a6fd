#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The anytime-valid half-width of SPEC §11.3: the normal-mixture confidence sequence of
/// Waudby-Smith et al. (2023, eq. 9 two-sided, eq. 134 one-sided) as GrowthBook's gbstats
/// implements it, equivalent to Johari et al.'s mSPRT. Unlike a fixed-horizon interval it
/// stays valid however often it is looked at, which is what lets a guard act at any look.
public enum SequentialBound {
    public enum Sides: Sendable {
        /// What guards use: "worse than" and "better than" are each a one-sided question.
        case one
        /// The confidence sequence gbstats reports (kept for its reference vectors and reports).
        case two
    }

    /// ρ² = (−2 ln a + ln(1 − 2 ln a)) / S with a = α (two-sided) or 2α (one-sided): the mixing
    /// variance that makes the sequence tightest around N = S clients.
    public static func rhoSquared(alpha: Double, tuningClients: Int, sides: Sides) -> Double {
        let a = sides == .one ? 2 * alpha : alpha
        return (-2 * log(a) + log(1 - 2 * log(a))) / Double(tuningClients)
    }

    /// h = √(V̂·N) · √( 2(Nρ²+1)/(N²ρ²) · L ) with L = ln(1 + √(Nρ²+1)/(2α)) one-sided,
    /// ln(√(Nρ²+1)/α) two-sided; V̂ = s_T²/n_T + s_C²/n_C and N = n_T + n_C.
    public static func halfWidth(variance: Double, clients: Int, alpha: Double, tuningClients: Int, sides: Sides = .one) -> Double {
        let n = Double(clients)
        let rho2 = rhoSquared(alpha: alpha, tuningClients: tuningClients, sides: sides)
        let growth = n * rho2 + 1
        let level = sides == .one ? log(1 + growth.squareRoot() / (2 * alpha)) : log(growth.squareRoot() / alpha)
        return (variance * n).squareRoot() * (2 * growth / (n * n * rho2) * level).squareRoot()
    }
}

/// Sample ratio mismatch (SPEC §11.3): are the counted clients split 1:1 as assignment says?
/// A challenger that crashes or never reports loses reporting clients; this notices.
public enum SampleRatio {
    /// χ² of n_T vs n_C against 1:1 (1 d.o.f.): (n_T − n_C)² / (n_T + n_C).
    public static func chiSquared(treatment: Int, control: Int) -> Double {
        let d = Double(treatment) - Double(control)
        return d * d / (Double(treatment) + Double(control))
    }

    /// P(χ²₁ ≥ x) = erfc(√(x/2)), exact for one degree of freedom (χ²₁ is a squared normal);
    /// nil without clients.
    public static func pValue(treatment: Int, control: Int) -> Double? {
        guard treatment + control > 0 else { return nil }
        return erfc((chiSquared(treatment: treatment, control: control) / 2).squareRoot())
    }

    /// Flagged only when the split is both significant (p < 0.001) and large enough to matter
    /// (treatment share off 0.5 by ≥ 0.01): at millions of clients a 50.2/49.8 split is
    /// "significant" yet harmless (mozilla/experimenter #16011).
    public static func isMismatch(treatment: Int, control: Int) -> Bool {
        guard let p = pValue(treatment: treatment, control: control) else { return false }
        let share = Double(treatment) / (Double(treatment) + Double(control))
        return p < 0.001 && abs(share - 0.5) >= 0.01
    }
}

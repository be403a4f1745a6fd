import Testing
import TestRandomness
#if canImport(Glibc)
import Glibc
#endif

/// The simulations are only as good as their draws: each sampler's first two moments over
/// 200,000 draws sit within 5 standard errors of the distribution's.
@Suite struct SeededRandomTests {
    static let draws = 200_000

    func moments(_ draw: () -> Double) -> (mean: Double, variance: Double) {
        var sum = 0.0, sumSq = 0.0
        for _ in 0..<Self.draws {
            let x = draw()
            sum += x
            sumSq += x * x
        }
        let m = sum / Double(Self.draws)
        return (m, sumSq / Double(Self.draws) - m * m)
    }

    /// Mean within 5 SE; variance within 5 % (loose, but a biased sampler misses both).
    func check(_ got: (mean: Double, variance: Double), mean: Double, variance: Double) {
        let se = (variance / Double(Self.draws)).squareRoot()
        #expect(abs(got.mean - mean) < 5 * se, "mean \(got.mean) vs \(mean)")
        #expect(abs(got.variance / variance - 1) < 0.05, "variance \(got.variance) vs \(variance)")
    }

    @Test func binomial_hasBinomialMoments() {
        var r = SeededRandom(seed: 1)
        check(moments { Double(r.binomial(250, 0.05)) }, mean: 12.5, variance: 250 * 0.05 * 0.95)
        check(moments { Double(r.binomial(10, 0.8)) }, mean: 8, variance: 10 * 0.8 * 0.2)
    }

    @Test func fairCoins_isBinomialHalf() {
        var r = SeededRandom(seed: 2)
        check(moments { Double(r.fairCoins(500)) }, mean: 250, variance: 125)
        check(moments { Double(r.fairCoins(37)) }, mean: 18.5, variance: 9.25)
    }

    @Test func beta_hasBetaMoments() {
        var r = SeededRandom(seed: 3)
        // Beta(a, b): mean a/(a+b), variance ab/((a+b)²(a+b+1)).
        check(moments { r.beta(0.5, 9.5) }, mean: 0.05, variance: 0.5 * 9.5 / (100 * 11))
        check(moments { r.beta(2, 3) }, mean: 0.4, variance: 6.0 / (25 * 6))
    }

    @Test func exponential_hasExponentialMoments() {
        var r = SeededRandom(seed: 4)
        check(moments { r.exponential(mean: 4) }, mean: 4, variance: 16)
    }

    /// Lognormal(μ = ln median, σ): mean e^(μ+σ²/2), variance (e^(σ²) − 1)·e^(2μ+σ²).
    @Test func lognormal_hasLognormalMoments() {
        var r = SeededRandom(seed: 5)
        let median = 10.0, sigma = 0.5, s2 = sigma * sigma
        check(moments { r.lognormal(median: median, sigma: sigma) }, mean: median * exp(s2 / 2), variance: (exp(s2) - 1) * median * median * exp(s2))
    }
}

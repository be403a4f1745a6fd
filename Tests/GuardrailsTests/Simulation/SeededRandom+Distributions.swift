#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import TestRandomness

/// The samplers only the statistical simulations of these tests need.
extension SeededRandom {
    /// Gamma(shape, 1) by Marsaglia–Tsang (2000); a shape below 1 via Gamma(shape + 1)·U^(1/shape).
    mutating func gamma(_ shape: Double) -> Double {
        if shape < 1 { return gamma(shape + 1) * pow(uniform(), 1 / shape) }
        let d = shape - 1.0 / 3, c = 1 / (9 * d).squareRoot()
        while true {
            let x = normal()
            let v0 = 1 + c * x
            guard v0 > 0 else { continue }
            let v = v0 * v0 * v0, u = uniform()
            if u < 1 - 0.0331 * x * x * x * x || log(u) < 0.5 * x * x + d * (1 - v + log(v)) { return d * v }
        }
    }

    /// Beta(a, b) as X/(X+Y) with X ~ Gamma(a), Y ~ Gamma(b).
    mutating func beta(_ a: Double, _ b: Double) -> Double {
        let x = gamma(a)
        return x / (x + gamma(b))
    }

    /// Binomial(n, p), exact by inversion (walking the pmf from 0 with its ratio recurrence);
    /// p above ½ by symmetry so the walk stays short. Fine for the small n·p simulated here.
    mutating func binomial(_ n: Int, _ p: Double) -> Int {
        if p > 0.5 { return n - binomial(n, 1 - p) }
        guard p > 0 else { return 0 }
        let ratio = p / (1 - p)
        var f = pow(1 - p, Double(n)), u = uniform(), k = 0
        while u > f, k < n {
            u -= f
            k += 1
            f *= ratio * Double(n - k + 1) / Double(k)
        }
        return k
    }

    /// Binomial(n, ½): the number of set bits among n random bits — exact and O(n/64).
    mutating func fairCoins(_ n: Int) -> Int {
        var heads = 0, left = n
        while left >= 64 { heads += next().nonzeroBitCount; left -= 64 }
        if left > 0 { heads += (next() >> UInt64(64 - left)).nonzeroBitCount }
        return heads
    }
}

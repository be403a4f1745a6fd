#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import TestRandomness

/// xoshiro256** (Blackman & Vigna), seeded through SplitMix64: fast, and the same numbers on
/// every machine, so a simulation's rates are reproducible to the last digit.
struct SeededRandom: RandomNumberGenerator {
    private var s0, s1, s2, s3: UInt64

    init(seed: UInt64) {
        var splitMix = SeededGenerator(state: seed)
        s0 = splitMix.next(); s1 = splitMix.next(); s2 = splitMix.next(); s3 = splitMix.next()
    }

    /// An independent stream per (scenario, run): runs do not depend on each other's draws.
    init(seed: UInt64, run: Int) {
        self.init(seed: seed ^ (UInt64(run) &* 0xD1B5_4A32_D192_ED03))
    }

    mutating func next() -> UInt64 {
        let result = ((s1 &* 5) << 7 | (s1 &* 5) >> 57) &* 9
        let t = s1 << 17
        s2 ^= s0; s3 ^= s1; s1 ^= s2; s0 ^= s3
        s2 ^= t
        s3 = s3 << 45 | s3 >> 19
        return result
    }

    /// Uniform on (0, 1): 53 random bits, never exactly 0 or 1 (logs and powers stay finite).
    mutating func uniform() -> Double {
        (Double(next() >> 11) + 0.5) * 0x1p-53
    }

    /// Standard normal (Marsaglia's polar method).
    mutating func normal() -> Double {
        while true {
            let u = 2 * uniform() - 1, v = 2 * uniform() - 1
            let s = u * u + v * v
            if s < 1, s > 0 { return u * (-2 * log(s) / s).squareRoot() }
        }
    }

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

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// xoshiro256** (Blackman & Vigna), seeded through SplitMix64: fast, and the same numbers on
/// every machine, so a simulation's figures are reproducible to the last digit from its seed.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var s0, s1, s2, s3: UInt64

    public init(seed: UInt64) {
        var splitMix = SeededGenerator(state: seed)
        s0 = splitMix.next(); s1 = splitMix.next(); s2 = splitMix.next(); s3 = splitMix.next()
    }

    /// An independent stream per (scenario, run): runs do not depend on each other's draws.
    public init(seed: UInt64, run: Int) {
        self.init(seed: seed ^ (UInt64(run) &* 0xD1B5_4A32_D192_ED03))
    }

    public mutating func next() -> UInt64 {
        let result = ((s1 &* 5) << 7 | (s1 &* 5) >> 57) &* 9
        let t = s1 << 17
        s2 ^= s0; s3 ^= s1; s1 ^= s2; s0 ^= s3
        s2 ^= t
        s3 = s3 << 45 | s3 >> 19
        return result
    }

    /// Uniform on (0, 1): 53 random bits, never exactly 0 or 1 (logs and powers stay finite).
    public mutating func uniform() -> Double {
        (Double(next() >> 11) + 0.5) * 0x1p-53
    }

    /// Standard normal (Marsaglia's polar method).
    public mutating func normal() -> Double {
        while true {
            let u = 2 * uniform() - 1, v = 2 * uniform() - 1
            let s = u * u + v * v
            if s < 1, s > 0 { return u * (-2 * log(s) / s).squareRoot() }
        }
    }

    /// Exponential with mean `mean`, by inversion: the gap between events of a Poisson process.
    public mutating func exponential(mean: Double) -> Double {
        -mean * log(uniform())
    }

    /// Lognormal with median `median` and log-scale standard deviation `sigma`.
    public mutating func lognormal(median: Double, sigma: Double) -> Double {
        median * exp(sigma * normal())
    }
}

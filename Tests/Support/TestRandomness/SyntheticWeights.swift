import Foundation

/// Float32 "weights" for tests of packed files and patches (SPEC §16): the same for a seed, with
/// the structure real weights have (a narrow range: sign and exponent bytes repeat, mantissas
/// are noise), and fine-tunes of them (every weight moved a little).
public enum SyntheticWeights {
    /// `count` weights around ±0.05 (sums of uniforms).
    public static func float32(_ count: Int, seed: UInt64) -> [Float] {
        var state = seed
        func uniform() -> Float {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Float(state >> 40) / Float(1 << 24) - 0.5
        }
        return (0..<count).map { _ in (uniform() + uniform() + uniform()) * 0.05 }
    }

    /// A fine-tune: every weight moved by a relative `change` at most.
    public static func fineTune(_ weights: [Float], change: Float, seed: UInt64) -> [Float] {
        let noise = float32(weights.count, seed: seed)
        return zip(weights, noise).map { w, n in w * (1 + change * n * 20) }
    }

    /// The weights as a file's bytes (native byte order).
    public static func data(_ floats: [Float]) -> Data { floats.withUnsafeBytes { Data($0) } }
}

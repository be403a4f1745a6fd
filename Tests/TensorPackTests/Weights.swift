import Foundation
import TestRandomness

/// Seeded stand-ins for model weights: normal floats (as trained weights are, clustered near
/// zero) and a fine-tune of them, `w · (1 + N(0, r))`, as little-endian bytes.
struct Weights {
    private var g: SeededGenerator

    init(seed: UInt64) { g = SeededGenerator(state: seed) }

    mutating func normal() -> Float {
        let u1 = max(Float(g.next() >> 40) / Float(1 << 24), .leastNormalMagnitude), u2 = Float(g.next() >> 40) / Float(1 << 24)
        return (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
    }

    mutating func float32(count: Int, sigma: Float = 0.05) -> [Float] {
        var out = [Float](repeating: 0, count: count)
        for i in 0..<count { out[i] = normal() * sigma }
        return out
    }

    mutating func fineTune(_ weights: [Float], relativeChange r: Float) -> [Float] {
        var out = weights
        for i in out.indices { out[i] *= 1 + r * normal() }
        return out
    }

    mutating func bytes(_ count: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        for i in 0..<count { out[i] = UInt8(truncatingIfNeeded: g.next()) }
        return out
    }
}

func littleEndianBytes(_ weights: [Float]) -> [UInt8] {
    weights.flatMap { w in withUnsafeBytes(of: w.bitPattern.littleEndian) { Array($0) } }
}

func littleEndianBytes16(_ weights: [Float]) -> [UInt8] {
    weights.flatMap { w in withUnsafeBytes(of: Float16(w).bitPattern.littleEndian) { Array($0) } }
}

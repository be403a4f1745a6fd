import Testing
import TestRandomness
@testable import TensorPack

/// The transpositions against their definitions, on every width and every tail length.
struct PlanesTests {
    /// Bit b of byte i of word k, read the slow way.
    static func bit(_ words: [UInt8], width: Int, word k: Int, byte i: Int, bit b: Int) -> UInt8 { words[k * width + i] >> b & 1 }

    @Test(arguments: PackHeader.widths)
    func bytePlanes_holdByteIOfEveryWord_andJoinBack(width: Int) {
        var weights = Weights(seed: 30)
        let words = weights.bytes(width * 37)
        var planes = [UInt8](repeating: 0, count: words.count), back = planes
        words.withUnsafeBytes { w in planes.withUnsafeMutableBytes { Planes.splitBytes(w, width: width, into: $0) } }
        for i in 0..<width { #expect(Array(planes[i * 37..<(i + 1) * 37]) == stride(from: i, to: words.count, by: width).map { words[$0] }) }
        planes.withUnsafeBytes { p in back.withUnsafeMutableBytes { Planes.joinBytes(p, width: width, into: $0) } }
        #expect(back == words)
    }

    @Test(arguments: PackHeader.widths)
    func bitPlanes_holdBitBOfByteIOfEveryWord_andJoinBack(width: Int) {
        var weights = Weights(seed: 31)
        let n = 64, words = weights.bytes(width * n)
        var planes = [UInt8](repeating: 0, count: words.count), scratch = planes, back = planes
        words.withUnsafeBytes { w in scratch.withUnsafeMutableBytes { s in planes.withUnsafeMutableBytes { Planes.splitBits(w, width: width, scratch: s, into: $0) } } }
        for i in 0..<width {
            for b in 0..<8 {
                let plane = planes[(8 * i + b) * n / 8..<(8 * i + b + 1) * n / 8]
                let expected = (0..<n / 8).map { g in (0..<8).reduce(UInt8(0)) { $0 | Self.bit(words, width: width, word: 8 * g + $1, byte: i, bit: b) << $1 } }
                #expect(Array(plane) == expected, "width \(width) byte \(i) bit \(b)")
            }
        }
        planes.withUnsafeBytes { p in scratch.withUnsafeMutableBytes { s in back.withUnsafeMutableBytes { Planes.joinBits(p, width: width, scratch: s, into: $0) } } }
        #expect(back == words)
    }

    @Test func transpose8x8_isItsOwnInverse_andMovesBitRCToCR() {
        var g = SeededGenerator(state: 32)
        for _ in 0..<100 {
            let m = g.next(), t = Planes.transpose8x8(m)
            #expect(Planes.transpose8x8(t) == m)
            for r in 0..<8 { for c in 0..<8 { #expect(m >> (8 * r + c) & 1 == t >> (8 * c + r) & 1) } }
        }
    }

    /// Every block length around the word and eight-word boundaries, each method, each width.
    @Test(arguments: PackHeader.widths)
    func blocks_roundTrip_atEveryTailLength(width: Int) throws {
        var weights = Weights(seed: 33)
        let encoder = BlockEncoder(width: width, level: 6), decoder = BlockDecoder()
        for length in 1...(16 * width + 3) {
            // Half zeros, half noise: planes that deflate and planes that are stored.
            let bytes = (0..<length).map { $0 % 2 == 0 ? 0 : UInt8(truncatingIfNeeded: $0 * 37) } as [UInt8]
            let noise = weights.bytes(length)
            let codings = [bytes, noise].map { input in input.withUnsafeBytes { encoder.encode($0) } }
                + [BlockMethod.bytePlanes, .bitPlanes].flatMap { method in [bytes, noise].compactMap { input in input.withUnsafeBytes { encoder.code($0, method, under: .max) } } }
            for (coded, input) in zip(codings, [bytes, noise, bytes, noise, bytes, noise]) {
                #expect(coded.count <= PackHeader.maxCodedLength(decoded: length, width: width))
                var out = [UInt8](repeating: 0, count: length)
                try coded.withUnsafeBytes { c in try out.withUnsafeMutableBytes { o in try decoder.decode(c, width: width, index: 0, into: o) } }
                #expect(out == input, "width \(width) length \(length)")
            }
        }
    }
}

import ChildProcesses
import Foundation
import Testing
import TestRandomness

/// `modelctl pack`, `patch` and `unpack` (SPEC §16): the real binary on generated weights.
@Suite(.serialized) final class PackCLITests {
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("pack-cli-\(UUID().uuidString)")

    init() throws { try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true) }
    deinit { try? FileManager.default.removeItem(at: scratch) }

    func modelctl(_ arguments: [String]) throws -> ProcessResult {
        try ChildProcess.run(TestBinaries.modelctl, arguments, directory: scratch, timeout: .seconds(60))
    }

    func path(_ name: String) -> String { scratch.appendingPathComponent(name).path }

    /// `count` float32 weights ~ N(0, 0.05), and their fine-tune w·(1 + N(0, 1e-3)), little-endian.
    static func weights(_ count: Int, seed: UInt64) -> (base: Data, tuned: Data) {
        var g = SeededGenerator(state: seed)
        func normal() -> Float {
            let u1 = max(Float(g.next() >> 40) / Float(1 << 24), .leastNormalMagnitude), u2 = Float(g.next() >> 40) / Float(1 << 24)
            return (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
        }
        var base = Data(), tuned = Data()
        for _ in 0..<count {
            let w = 0.05 * normal()
            withUnsafeBytes(of: w.bitPattern.littleEndian) { base.append(contentsOf: $0) }
            withUnsafeBytes(of: (w * (1 + 1e-3 * normal())).bitPattern.littleEndian) { tuned.append(contentsOf: $0) }
        }
        return (base, tuned)
    }

    func summary(_ result: ProcessResult) throws -> [String: Any] {
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result.stdout)")
        #expect(Set(object.keys) == ["size", "coded", "ratio", "width"])
        return object
    }

    @Test func packAndPatch_printTheSPECsFigures_andUnpackRebuildsTheFiles_SPEC16() throws {
        let (base, tuned) = Self.weights(150_000, seed: 30)
        try base.write(to: URL(fileURLWithPath: path("old.bin")))
        try tuned.write(to: URL(fileURLWithPath: path("new.bin")))

        let pack = try summary(modelctl(["pack", path("new.bin"), "--output", path("new.pack"), "--json"]))
        #expect(pack["size"] as? Int == tuned.count && pack["width"] as? Int == 4)
        let packed = try #require(pack["coded"] as? Int)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path("new.pack"))).count == packed)
        #expect((pack["ratio"] as? Double).map { abs($0 - Double(packed) / Double(tuned.count)) < 1e-4 && $0 < 0.9 } == true, "\(pack)")

        let patch = try summary(modelctl(["patch", path("old.bin"), path("new.bin"), "--output", path("new.patch"), "--json"]))
        #expect(patch["size"] as? Int == tuned.count)
        #expect((patch["ratio"] as? Double ?? 1) < 0.6 && (patch["coded"] as? Int ?? .max) < packed, "\(patch)")

        let unpacked = try modelctl(["unpack", path("new.pack"), "--output", path("a.bin")])
        #expect(unpacked.status == 0 && unpacked.stdout.contains("every block and the whole file checked"), "\(unpacked.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path("a.bin"))) == tuned)
        let applied = try modelctl(["unpack", path("new.patch"), "--base", path("old.bin"), "--output", path("b.bin")])
        #expect(applied.status == 0, "\(applied.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path("b.bin"))) == tuned)

        // Without --output nothing is written; the text form names the same figures.
        let text = try modelctl(["pack", path("new.bin")])
        #expect(text.status == 0 && text.stdout.contains("coded: \(packed) bytes") && text.stdout.contains("width 4"), "\(text.stdout)")
    }

    @Test func unpack_refusesADamagedPackOrTheWrongBase_andLeavesNothing_SPEC16() throws {
        let (base, tuned) = Self.weights(50_000, seed: 31)
        try base.write(to: URL(fileURLWithPath: path("old.bin")))
        try tuned.write(to: URL(fileURLWithPath: path("new.bin")))
        #expect(try modelctl(["patch", path("old.bin"), path("new.bin"), "--output", path("p")]).status == 0)
        var damaged = try Data(contentsOf: URL(fileURLWithPath: path("p")))
        // Mid-plane: a flip in a deflate stream's final padding bits decodes the same (docs/decisions/tensor-pack.md).
        damaged[damaged.count / 2] ^= 0x40
        try damaged.write(to: URL(fileURLWithPath: path("damaged")))

        for (arguments, message) in [
            (["unpack", path("damaged"), "--base", path("old.bin")], "block 0"),
            (["unpack", path("p"), "--base", path("new.bin")], "block 0 does not match its SHA-256 (damaged, or a patch applied to the wrong base)"),
            (["unpack", path("p")], "a patch needs the file it was made from"),
            (["unpack", path("old.bin")], "not an MDPACK1 file"),
        ] {
            let result = try modelctl(arguments + ["--output", path("out")])
            #expect(result.status == 1 && result.stderr.contains(message), "\(arguments): \(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: path("out")))
        }
    }

    @Test func badArguments_exit2_missingFiles_exit1_anEmptyFileHasNoRatio() throws {
        #expect(try modelctl(["pack"]).status == 2)
        #expect(try modelctl(["patch", path("x")]).status == 2)
        #expect(try modelctl(["unpack", path("x")]).status == 2)   // --output is required
        let missing = try modelctl(["pack", path("nope")])
        #expect(missing.status == 1 && missing.stderr.contains("nope"), "\(missing.stderr)")
        #expect(FileManager.default.createFile(atPath: path("empty"), contents: Data()))
        let empty = try modelctl(["pack", path("empty"), "--json"])
        #expect(empty.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == #"{"size":0,"coded":100,"ratio":null,"width":1}"#)
    }
}

// pack-decode-bench NAME CODED [BASE] (Benchmarks/transfer/run.sh): MDPACK1 decoding speed in
// memory, MB of output per CPU second (one thread), best of 3, beside its parts and a peer:
// - decode: PackStreamDecoder fed 1 MiB pieces, every block and the whole file checked, as a
//   client does it (no file I/O);
// - SHA-256 ×2: the two hash passes those checks make over the output, timed alone;
// - zlib: inflating the same output deflated at level 6 as one stream, through the same libz.
// Prints one Markdown row.
import CryptoPrimitives
import CZlib
import Glibc
import TensorPack

@main
enum PackDecodeBench {
    static func main() {
        let arguments = CommandLine.arguments
        guard arguments.count >= 3 else { fatalError("usage: pack-decode-bench NAME CODED [BASE]") }
        let coded = readFile(arguments[2])
        let base = arguments.count > 3 ? readFile(arguments[3]) : nil
        let output = decode(coded, base: base, keeping: true)
        let decodeTime = best { _ = decode(coded, base: base, keeping: false) }
        let hashTime = best { hashTwice(output) }
        var deflated = [UInt8](repeating: 0, count: Int(compressBound(uLong(output.count))))
        var deflatedLength = uLong(deflated.count)
        guard compress2(&deflated, &deflatedLength, output, uLong(output.count), 6) == Z_OK else { fatalError("compress2 failed") }
        var inflated = [UInt8](repeating: 0, count: output.count)
        let zlibTime = best {
            var length = uLong(inflated.count)
            guard uncompress(&inflated, &length, deflated, deflatedLength) == Z_OK, length == uLong(output.count) else { fatalError("uncompress failed") }
        }
        let size = Double(output.count)
        func rate(_ seconds: Double) -> String { String(Int((size / 1e6 / max(seconds, 1e-6)).rounded())) }
        let zlibRatio = Double(Int((Double(deflatedLength) / size * 1000).rounded())) / 1000
        let cells: [String] = [arguments[1], String(output.count), String(coded.count), rate(decodeTime), rate(hashTime),
                               rate(decodeTime - hashTime), "\(rate(zlibTime)) (\(zlibRatio)×)"]
        print("| " + cells.joined(separator: " | ") + " |")
    }

    static func decode(_ coded: [UInt8], base: [UInt8]?, keeping: Bool) -> [UInt8] {
        var decoder = PackStreamDecoder(base: base.map(BytesBase.init))
        var out: [UInt8] = [], check: UInt8 = 0
        do {
            for start in stride(from: 0, to: coded.count, by: 1 << 20) {
                coded[start..<min(start + (1 << 20), coded.count)].withUnsafeBytes { decoder.append($0) }
                while let block = try decoder.nextBlock() {
                    if keeping { out += block } else { check ^= block[block.count / 2] }
                }
            }
            try decoder.finish()
        } catch { fatalError("\(error)") }
        return keeping ? out : [check]
    }

    /// What the checks hash: each 1 MiB block on its own, and the whole output.
    static func hashTwice(_ output: [UInt8]) {
        var whole = SHA256()
        output.withUnsafeBytes { bytes in
            for start in stride(from: 0, to: bytes.count, by: 1 << 20) {
                let piece = UnsafeRawBufferPointer(rebasing: bytes[start..<min(start + (1 << 20), bytes.count)])
                var block = SHA256()
                block.update(bufferPointer: piece)
                _ = block.finalize()
                whole.update(bufferPointer: piece)
            }
        }
        _ = whole.finalize()
    }

    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    /// The least CPU seconds of three runs of `body`.
    static func best(_ body: () -> Void) -> Double {
        (0..<3).map { _ in let t = cpuSeconds(); body(); return cpuSeconds() - t }.min()!
    }

    static func readFile(_ path: String) -> [UInt8] {
        guard let f = fopen(path, "rb") else { fatalError("cannot open \(path)") }
        defer { fclose(f) }
        fseek(f, 0, SEEK_END)
        var bytes = [UInt8](repeating: 0, count: ftell(f))
        fseek(f, 0, SEEK_SET)
        guard bytes.withUnsafeMutableBytes({ fread($0.baseAddress, 1, $0.count, f) }) == bytes.count else { fatalError("cannot read \(path)") }
        return bytes
    }
}

#if canImport(Glibc)
import Glibc
#endif
import DurableFiles

// Test helper for DurableAppendCrashTests: appends line after line to the file argv[1] through
// DurableFile.appendLine until killed. Line n (0-based, counted on from the whole lines a
// killed run left) is `n:<pad>:n`, the pad's length a function of n (up to 64 KiB, so a
// write is often cut by the kill), so a torn or mixed line is visible.
func fail(_ message: String, status: Int32) -> Never {
    let bytes = Array((message + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(status)
}

/// Line `n` as the test expects to read it back.
func line(_ n: Int) -> [UInt8] {
    Array("\(n):".utf8) + [UInt8](repeating: UInt8(ascii: "x"), count: n * 7919 % (64 << 10)) + Array(":\(n)".utf8)
}

guard CommandLine.arguments.count == 2 else { fail("usage: durable-append-loop FILE", status: 2) }
let path = CommandLine.arguments[1]
var n: Int
do throws(IOFailure) { n = try DurableFile.read(path)?.count { $0 == UInt8(ascii: "\n") } ?? 0 } catch {
    fail("durable-append-loop: \(error)", status: 1)
}
while true {
    do throws(IOFailure) { try DurableFile.appendLine(line(n), to: path) } catch { fail("durable-append-loop: \(error)", status: 1) }
    n += 1
}

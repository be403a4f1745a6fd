#if canImport(Glibc)
import Glibc
#endif
import DurableFiles

// Test helper for DurableAppendCrashTests: appends line after line to the file argv[1] through
// DurableFile.appendLine until killed. Line n (0-based, counted on from the whole lines a
// killed run left) is `n:<pad>:n`, the pad's length a function of n (up to 16 KiB: four pages, so a
// write is often cut by the kill), so a torn or mixed line is visible.

/// Line `n` as the test expects to read it back.
func line(_ n: Int) -> [UInt8] {
    Array("\(n):".utf8) + [UInt8](repeating: UInt8(ascii: "x"), count: n * 7919 % (16 << 10)) + Array(":\(n)".utf8)
}

/// Says why on stderr and exits with `status`: a failure the test tells from a kill.
func exit(_ status: Int32, saying message: String) -> Never {
    _ = (message + "\n").withCString { write(2, $0, strlen($0)) }
    exit(status)
}

guard CommandLine.arguments.count == 2 else { exit(2, saying: "usage: durable-append-loop FILE") }
let path = CommandLine.arguments[1]
do throws(IOFailure) {
    var n = try DurableFile.read(path)?.count { $0 == UInt8(ascii: "\n") } ?? 0
    while true {
        try DurableFile.appendLine(line(n), to: path)
        n += 1
    }
} catch {
    exit(1, saying: "durable-append-loop: \(error)")
}

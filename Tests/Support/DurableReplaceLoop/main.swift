#if canImport(Glibc)
import Glibc
#endif
import DurableFiles

// Test helper for MirrorJournalCrashTests: rewrites the file named by argv[1] through
// DurableFile.replace — the call modelctl's MirrorJournal makes for every journal write — until
// killed. Each version is a ~256 KiB JSON object whose first and last members carry the same
// counter, so a torn file is visible as unparsable or mismatched.
func fail(_ message: String, status: Int32) -> Never {
    let bytes = Array((message + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(status)
}

guard CommandLine.arguments.count == 2 else { fail("usage: durable-replace-loop FILE", status: 2) }
let path = CommandLine.arguments[1]
let pad = String(repeating: "x", count: 256 * 1024)
var version = 0
while true {
    version += 1
    do throws(IOFailure) {
        try DurableFile.replace(path, with: Array(#"{"version":\#(version),"pad":"\#(pad)","end":\#(version)}"#.utf8))
    } catch {
        fail("durable-replace-loop: \(error)", status: 1)
    }
}

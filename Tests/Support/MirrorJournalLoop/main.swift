#if canImport(Glibc)
import Glibc
#endif
import BucketMirror
import ModelMirror

// Test helper for MirrorJournalCrashTests: writes the mirror journal of the models directory
// argv[1] through MirrorJournal — an upload entry, then the deletion schedule — version after
// version until killed, going on from the version a killed run left. Each entry carries its
// version in `size` and `part_size` and a ~256 KiB upload id, so a torn file is visible as
// unparsable or mismatched.
func fail(_ message: String, status: Int32) -> Never {
    let bytes = Array((message + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(status)
}

guard CommandLine.arguments.count == 2 else { fail("usage: mirror-journal-loop MODELS_DIR", status: 2) }
let journal = MirrorJournal(modelsDir: CommandLine.arguments[1])
let pad = String(repeating: "x", count: 256 * 1024)
let key = "models/big.onnx"
var version = journal.entry(for: key)?.size ?? 0
var schedule: DeletionSchedule
do throws(MirrorFailure) { schedule = try journal.deletions() } catch { fail("mirror-journal-loop: \(error)", status: 1) }
while true {
    version += 1
    do throws(MirrorFailure) {
        try journal.record(.init(key: key, upload_id: "v\(version)-" + pad, size: version,
                                 sha256: String(repeating: "a", count: 64), part_size: version))
        schedule.pending["models/old.onnx"] = version
        try journal.save(schedule)
    } catch {
        fail("mirror-journal-loop: \(error)", status: 1)
    }
}

import ChildProcesses
import Foundation
import Testing

/// One round of a crash loop (MirrorJournalCrashTests, DurableAppendCrashTests): starts a
/// writer, waits (bounded) until it has made progress, lets it run on for a random 0–20 ms —
/// the kill point, not a synchronisation — then SIGKILLs and reaps it. An issue is recorded
/// when it made no progress or exited by itself.
enum KilledWriter {
    static func run(_ executable: URL, _ arguments: [String], killedOnce progressed: () -> Bool) throws {
        let writer = try ChildProcess.start(executable, arguments)
        let advanced = ModeldServer.eventually(within: 10, progressed)
        usleep(UInt32.random(in: 0..<20_000))
        writer.signal(SIGKILL)
        let status = try writer.wait(timeout: .seconds(10)).status
        #expect(advanced, "the writer made no progress")
        #expect(status == -SIGKILL, "the writer exited by itself: \(status)")
    }
}

import Foundation
import Testing

/// The mirror journal survives a crash mid-write (issue 19 item 3): modelctl's MirrorJournal
/// writes every entry through DurableFile.replace; a real process doing exactly that is
/// SIGKILLed at random points, again and again, and the file is always one whole version —
/// the last one or the one before — never a torn mix. (SIGKILL tests the temp-file-and-rename
/// half of SPEC §2's rule; the fsyncs are what make it hold across power loss as well.)
@Suite struct MirrorJournalCrashTests {
    /// The version of a whole file; nil (with an issue recorded) for a torn one.
    private func version(_ path: String) -> Int? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let version = object["version"] as? Int, object["end"] as? Int == version,
              (object["pad"] as? String)?.utf8.count == 256 * 1024 else {
            Issue.record("torn journal: \(data.count) bytes: \(String(decoding: data.prefix(60), as: UTF8.self))…")
            return nil
        }
        return version
    }

    @Test func journalRewrite_SIGKILLedMidWrite_isAlwaysWhole() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("journal-crash-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("upload.json").path
        var last = 0
        var kills = 0
        let deadline = Date().addingTimeInterval(30)
        while kills < 40 && Date() < deadline {
            let writer = Process()
            writer.executableURL = TestBinaries.durableReplaceLoop
            writer.arguments = [path]
            try writer.run()
            // Killed only once it has written past the last version seen: every round crashes a
            // process that is rewriting a journal that exists.
            let advanced = ModeldServer.eventually(within: 10) {
                FileManager.default.fileExists(atPath: path) && (version(path) ?? -1) > last
            }
            // A random point in the next write cycles (the kill point, not a synchronisation).
            usleep(UInt32.random(in: 0..<20_000))
            kill(writer.processIdentifier, SIGKILL)
            writer.waitUntilExit()
            #expect(advanced, "the writer made no progress")
            #expect(writer.terminationReason == .uncaughtSignal, "the writer exited by itself: \(writer.terminationStatus)")
            guard let now = version(path) else { break }
            #expect(now >= last)
            last = now
            kills += 1
        }
        #expect(kills >= 10, "only \(kills) kills in 30 s")
        // The temp files of killed writers are all that is left besides the journal.
        let others = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0 != "upload.json" }
        #expect(others.allSatisfy { $0.hasPrefix(".upload.json.tmp-") }, "\(others)")
    }
}

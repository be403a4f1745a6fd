import BucketMirror
import ChildProcesses
import Foundation
import Testing

/// The mirror journal survives a crash mid-write (issue 19): a real process writing the journal
/// through MirrorJournal — an upload entry and the deletion schedule, version after version — is
/// SIGKILLed at random points, again and again, and MirrorJournal then loads one whole version
/// of each, the last one or the one before, never a torn mix. (SIGKILL tests the
/// temp-file-and-rename half of SPEC §2's rule; the fsyncs make it hold across power loss too.)
@Suite struct MirrorJournalCrashTests {
    static let key = "models/big.onnx"

    /// The versions the journal loads as (entry, schedule); nil (with an issue recorded) when
    /// either file is there but does not load whole.
    private func versions(_ journal: MirrorJournal) -> (entry: Int64, schedule: Int64)? {
        let entryFile = (try? FileManager.default.contentsOfDirectory(atPath: journal.directory))?.first { !$0.hasPrefix(".") }
        guard let entry = journal.entry(for: Self.key) else {
            if let entryFile { Issue.record("torn journal entry \(entryFile)") }
            return entryFile == nil ? (0, 0) : nil
        }
        guard entry.size == entry.part_size, entry.upload_id.hasPrefix("v\(entry.size)-"), entry.upload_id.utf8.count > 256 * 1024 else {
            Issue.record("mixed journal entry: size \(entry.size), part_size \(entry.part_size), \(entry.upload_id.prefix(20))…")
            return nil
        }
        do {
            let schedule = try journal.deletions()
            return (entry.size, schedule.pending["models/old.onnx"] ?? 0)
        } catch {
            Issue.record("torn deletion schedule: \(error)")
            return nil
        }
    }

    @Test func journalRewrite_SIGKILLedMidWrite_alwaysLoadsWhole() throws {
        let models = FileManager.default.temporaryDirectory.appendingPathComponent("journal-crash-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: models, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: models) }
        let journal = MirrorJournal(modelsDir: models)
        var last: (entry: Int64, schedule: Int64) = (0, 0)
        var kills = 0
        let deadline = Date().addingTimeInterval(30)
        while kills < 40 && Date() < deadline {
            // Killed only once it has written past the last version seen: every round crashes a
            // process that is rewriting a journal that exists.
            try KilledWriter.run(TestBinaries.mirrorJournalLoop, [models]) { (versions(journal)?.entry ?? -1) > last.entry }
            guard let now = versions(journal) else { break }
            // Each file is the old version or a newer one; the schedule is written after the entry.
            #expect(now.entry >= last.entry && now.schedule >= last.schedule)
            #expect(now.schedule <= now.entry)
            last = now
            kills += 1
        }
        #expect(kills >= 10, "only \(kills) kills in 30 s")
        // The temp files of killed writers are all that is left besides the journal's two files.
        let uploads = try FileManager.default.contentsOfDirectory(atPath: journal.directory)
        #expect(uploads.filter { !$0.hasPrefix(".") }.count == 1)
        #expect(uploads.filter { $0.hasPrefix(".") }.allSatisfy { $0.contains(".json.tmp-") }, "\(uploads)")
        let mirror = try FileManager.default.contentsOfDirectory(atPath: models + "/.mirror")
        #expect(mirror.allSatisfy { $0 == "uploads" || $0 == "deletions.json" || $0.hasPrefix(".deletions.json.tmp-") }, "\(mirror)")
    }
}

#if canImport(Glibc)
import Glibc
#endif
@testable import EventStore
import Testing

/// Commit records and the one segment reader (SPEC §5, docs/decisions/events.md).
@Suite(.serialized) struct CommittedReaderTests {
    static func committedLines(_ path: String, from offset: Int = 0) throws -> ([String], SegmentReader.Progress) {
        var lines: [String] = []
        let progress = try SegmentReader(path: path).forEachCommittedLine(from: offset) { lines.append(String(decoding: $0, as: UTF8.self)) }
        return (lines, progress)
    }

    static func record(_ lines: Int, _ bytes: Int) -> String { String(decoding: CommitRecord(lines: lines, bytes: bytes).encoded(), as: UTF8.self) }

    @Test func commitRecord_isRecognisedOnlyInItsExactForm() {
        #expect(Self.record(3, 1234) == #"{"commit":{"lines":3,"bytes":1234}}"# + "\n")
        #expect(CommitRecord(line: bytes(#"{"commit":{"lines":3,"bytes":1234}}"#)[...]) == CommitRecord(lines: 3, bytes: 1234))
        for other in [
            #"{"commit":{"lines":3,"bytes":1234},"batch_id":"b"}"#,   // an event may start like one
            #"{"commit":{"lines":03,"bytes":1}}"#, #"{"commit":{"lines":3,"bytes":1} }"#,
            #"{"commit":{"lines":-1,"bytes":1}}"#, #"{"commit":{"bytes":1,"lines":3}}"#, #"{"commit":{"lines":3,"bytes":}}"#,
        ] {
            #expect(CommitRecord(line: bytes(other)[...]) == nil, "\(other)")
        }
    }

    /// One record per group commit, not per batch; a new segment starts with the empty record.
    @Test func writer_appendsOneRecordPerCommit() throws {
        let dir = makeTempDirectory()
        defer { removeTree(dir) }
        let store = try openStore(dir)
        #expect(store.submitAndWait(try parseBatch(batchBody(id: "a", count: 2)), sdk: nil) == .accepted(2))
        #expect(store.submitAndWait(try parseBatch(batchBody(id: "b", count: 1)), sdk: nil) == .accepted(1))
        store.close()
        let text = String(decoding: readWholeFile(files(dir, suffix: ".jsonl")[0])!, as: UTF8.self)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.count == 7 && lines[6].isEmpty)
        #expect(lines[0] + "\n" == Self.record(0, 0))
        #expect(lines[3] + "\n" == Self.record(2, lines[1].utf8.count + lines[2].utf8.count + 2))
        #expect(lines[5] + "\n" == Self.record(1, lines[4].utf8.count + 1))
        #expect([1, 2, 4].allSatisfy { StoredEvent(line: bytes(lines[$0])[...])?.batchID != nil })
    }

    /// A reader of a live segment: lines after the last record (a write in progress, or one a
    /// SIGKILL cut) are not yielded and the offset stops before them; once their record is
    /// there, resuming from the offset yields exactly them.
    @Test func reader_yieldsOnlyCommittedLines_andResumesFromItsOffset() throws {
        let dir = makeTempDirectory()
        defer { removeTree(dir) }
        let store = try openStore(dir)
        #expect(store.submitAndWait(try parseBatch(batchBody(id: "a", count: 2)), sdk: nil) == .accepted(2))
        store.close()
        let segment = files(dir, suffix: ".jsonl")[0]
        let (first, p1) = try Self.committedLines(segment)
        #expect(first.count == 2 && p1 == SegmentReader.Progress(offset: fileSize(segment), lines: 2))

        let pending = [ExportStatsTests.line("b", seq: 0), ExportStatsTests.line("b", seq: 1)]
        appendRaw(segment, pending.joined() + #"{"name":"n","ts":1,"batch_"#)
        let (none, p2) = try Self.committedLines(segment, from: p1.offset)
        #expect(none.isEmpty && p2.offset == p1.offset)
        #expect(try Self.committedLines(segment).0 == first)

        // The write completes: the torn line's rest, then the group's record.
        let torn = #"{"name":"n","ts":1,"batch_id":"b","seq":2}"# + "\n"
        appendRaw(segment, String(torn.dropFirst(#"{"name":"n","ts":1,"batch_"#.count)))
        let group = pending.joined() + torn
        appendRaw(segment, Self.record(3, group.utf8.count))
        let (next, p3) = try Self.committedLines(segment, from: p1.offset)
        #expect(next.map { $0 + "\n" } == pending + [torn])
        #expect(p3 == SegmentReader.Progress(offset: fileSize(segment), lines: 3))
        // An offset past the end (the segment was cut back after a failed fdatasync) yields nothing.
        #expect(try Self.committedLines(segment, from: p3.offset + 100).1 == SegmentReader.Progress(offset: p3.offset + 100))
    }

    /// A group whose record does not match its lines (a page lost to power failure reads as
    /// NULs without newlines) is skipped whole and counted; later groups still count.
    @Test func reader_skipsAGroupItsRecordDoesNotMatch() throws {
        let root = makeTempDirectory()
        defer { removeTree(root) }
        let good = ExportStatsTests.line("g", seq: 0)
        let lost = String(repeating: "\0", count: 20) + ExportStatsTests.line("h", seq: 1)
        ExportStatsTests.writeSegment(root, day: "2026-11-21", name: "a-000001.jsonl", [
            Self.record(0, 0), good, Self.record(1, good.utf8.count),
            ExportStatsTests.line("h", seq: 0), lost, Self.record(2, ExportStatsTests.line("h", seq: 0).utf8.count + lost.utf8.count + 100),
            good, Self.record(1, good.utf8.count),
        ])
        let (lines, progress) = try Self.committedLines("\(root)/2026-11-21/a-000001.jsonl")
        #expect(lines.map { $0 + "\n" } == [good, good])
        #expect(progress.skippedLines == 2 && progress.lines == 2)
        let (events, summary) = try ExportStatsTests.export(root)
        #expect(events == ["g/0"])
        #expect(summary.unreadableLines == 2 && summary.duplicateEvents == 1)
    }

    /// Segments written before commit records existed have none: every complete line counts.
    @Test func reader_legacySegmentWithoutRecords_countsEveryCompleteLine() throws {
        let root = makeTempDirectory()
        defer { removeTree(root) }
        let lines = [ExportStatsTests.line("old", seq: 0), ExportStatsTests.line("old", seq: 1)]
        ExportStatsTests.writeSegment(root, day: "2026-11-21", name: "a-000001.jsonl", lines + [#"{"name":"#])
        let path = "\(root)/2026-11-21/a-000001.jsonl"
        let (read, progress) = try Self.committedLines(path)
        #expect(read.map { $0 + "\n" } == lines)
        #expect(progress.offset == lines.joined().utf8.count)
        #expect(try Self.committedLines(path, from: lines[0].utf8.count).0.map { $0 + "\n" } == [lines[1]])
    }
}

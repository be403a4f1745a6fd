import ChildProcesses
import Foundation
import Testing

/// `modelctl verify` checks chunk lists (SPEC §14): the real binary on a models directory
/// published by the real `modelctl publish --models-dir`; `modelctl chunks backfill` is the
/// remedy it names. Part of the `ChunksCLITests` suite (its scratch directory and helpers).
extension ChunksCLITests {
    /// Publishes `size` seeded bytes; answers the release id and its file name.
    private func publish(_ size: Int, seed: UInt64) throws -> (id: String, file: String) {
        let source = scratch.appendingPathComponent("source-\(seed).onnx")
        try DeltaUpdateTests.bytes(size, seed: seed).write(to: source)
        let result = try modelctl(["publish", source.path, "--sdk-min", "1.0", "--models-dir", models.path, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let id = try #require(try json(result)["id"] as? String)
        return (id, "\(id).onnx")
    }

    private func list(_ file: String) -> URL { models.appendingPathComponent(file + ".chunks") }

    /// `"chunks":{"sha256":…,"size":…}` of `file` in catalog.json, as the catalog writes it.
    private func record(of file: String) throws -> String {
        let bytes = try Data(contentsOf: list(file))
        let sha = String(try ChildProcess.run(URL(fileURLWithPath: "/usr/bin/sha256sum"), [list(file).path]).stdout.prefix(64))
        return #","chunks":{"sha256":"\#(sha)","size":\#(bytes.count)}"#
    }

    /// Edits catalog.json by hand, bumping `catalog_version` as every change does (SPEC §12), so
    /// the snapshots of the old version are not taken for altered ones (SPEC §12.1).
    private func editCatalog(_ edit: (String) -> String) throws {
        let url = models.appendingPathComponent("catalog.json")
        let before = try String(contentsOf: url, encoding: .utf8)
        var after = edit(before)
        try #require(after != before, "the edit changed nothing")
        let version = try #require(after.firstMatch(of: /"catalog_version":(\d+)/))
        after.replaceSubrange(version.range, with: #""catalog_version":\#(Int(version.1)! + 1)"#)
        try after.write(to: url, atomically: true, encoding: .utf8)
    }

    @Test func goodListsPass_missingTruncatedTamperedAndUnrecordedFailNamingTheList_andBackfillRepairsThem_SPEC14() throws {
        let files = try (0..<5).map { try publish(300_000 + $0 * 70_000, seed: 40 + UInt64($0)) }
        let good = try modelctl(["verify", "--models-dir", models.path])
        #expect(good.status == 0, "\(good.stdout)\(good.stderr)")
        #expect(good.stdout.contains("match the catalog, and so do their 5 chunk lists"), "\(good.stdout)")
        let goodReport = try json(try modelctl(["verify", "--models-dir", models.path, "--json"]))
        #expect(goodReport["ok"] as? Bool == true && goodReport["chunk_lists"] as? Int == 5)

        let originals = try files.map { try Data(contentsOf: list($0.file)) }
        let (missing, truncated, tampered, unrecorded) = (files[0], files[1], files[2], files[3])
        try FileManager.default.removeItem(at: list(missing.file))
        try originals[1].prefix(originals[1].count - 36).write(to: list(truncated.file))   // one chunk entry short
        var flipped = originals[2]
        flipped[24 + 4 + 7] ^= 0x01   // one bit of the first chunk's SHA-256: still a well-formed list
        try flipped.write(to: list(tampered.file))
        let unrecordedRecord = try record(of: unrecorded.file)
        try editCatalog { $0.replacingOccurrences(of: unrecordedRecord, with: "") }   // as published before v4

        let bad = try modelctl(["verify", "--models-dir", models.path])
        #expect(bad.status == 1)
        let lines = bad.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 4, "\(bad.stdout)")
        let remedy = "; run `modelctl chunks backfill --models-dir \(models.path)`"
        #expect(lines.contains("\(missing.id) \(missing.file).chunks: missing (the catalog records it)" + remedy), "\(lines)")
        #expect(lines.contains("\(truncated.id) \(truncated.file).chunks: invalid: the chunk list is truncated" + remedy), "\(lines)")
        #expect(lines.contains("\(tampered.id) \(tampered.file).chunks: not the chunk list the catalog records" + remedy), "\(lines)")
        #expect(lines.contains("\(unrecorded.id) \(unrecorded.file).chunks: no chunk list recorded in the catalog (published before v4)" + remedy),
                "\(lines)")
        #expect(bad.stderr == "modelctl: 4 chunk lists are missing or do not describe their files\n", "\(bad.stderr)")

        let report = try json(try modelctl(["verify", "--models-dir", models.path, "--json"]))
        #expect(report["ok"] as? Bool == false && report["checked"] as? Int == 5 && report["chunk_lists"] as? Int == 1)
        let problems = try #require(report["problems"] as? [[String: Any]])
        let byFile = Dictionary(uniqueKeysWithValues: problems.map { ($0["file"] as? String ?? "", $0) })
        #expect(byFile["\(missing.file).chunks"]?["problem"] as? String == "chunks_missing")
        #expect(byFile["\(truncated.file).chunks"]?["problem"] as? String == "chunks_invalid")
        #expect(byFile["\(truncated.file).chunks"]?["actual_size"] as? Int == originals[1].count - 36)
        #expect(byFile["\(truncated.file).chunks"]?["expected_size"] as? Int == originals[1].count)
        #expect(byFile["\(tampered.file).chunks"]?["problem"] as? String == "chunks_sha256_mismatch")
        #expect(byFile["\(unrecorded.file).chunks"]?["problem"] as? String == "chunks_unrecorded")
        #expect(byFile["\(unrecorded.file).chunks"]?["expected_sha256"] == nil)
        for p in problems {
            #expect(p["model_file"] as? String == (p["file"] as? String).map { String($0.dropLast(".chunks".count)) })
            #expect(p["remedy"] as? String == "modelctl chunks backfill --models-dir \(models.path)")
        }

        let backfill = try modelctl(["chunks", "backfill", "--models-dir", models.path, "--json"])
        #expect(backfill.status == 0, "\(backfill.stderr)")
        let written = try #require(try json(backfill)["files"] as? [[String: Any]])
        #expect(Dictionary(uniqueKeysWithValues: written.map { ($0["file"] as? String ?? "", $0["restored"] as? Bool) })
            == [missing.file: true, truncated.file: true, tampered.file: true, unrecorded.file: false])
        for (i, f) in files.enumerated() { #expect(try Data(contentsOf: list(f.file)) == originals[i], "\(f.file)") }
        let repaired = try modelctl(["verify", "--models-dir", models.path])
        #expect(repaired.status == 0, "\(repaired.stdout)\(repaired.stderr)")
    }

    /// The catalog records exactly the list on disk, but it is another file's: only chunking
    /// the file again finds that. No remedy is offered (the recorded, signed list is wrong, and
    /// backfill leaves recorded lists that are intact on disk alone).
    @Test func aRecordedListOfOtherBytesFails_withoutARemedy_SPEC14() throws {
        let a = try publish(200_000, seed: 50), b = try publish(260_000, seed: 51)
        let recordA = try record(of: a.file), recordB = try record(of: b.file)
        try FileManager.default.removeItem(at: list(b.file))
        try FileManager.default.copyItem(at: list(a.file), to: list(b.file))
        try editCatalog { $0.replacingOccurrences(of: recordB, with: recordA) }

        let result = try modelctl(["verify", "--models-dir", models.path])
        #expect(result.status == 1)
        #expect(result.stdout == "\(b.id) \(b.file).chunks: does not describe its file: the list describes 200000 bytes, the file has 260000\n",
                "\(result.stdout)")
        #expect(result.stderr == "modelctl: 1 chunk list is missing or does not describe its file\n", "\(result.stderr)")
        let problem = try #require((try json(try modelctl(["verify", "--models-dir", models.path, "--json"]))["problems"] as? [[String: Any]])?.first)
        #expect(problem["problem"] as? String == "chunks_mismatch" && problem["remedy"] == nil)

        let backfill = try modelctl(["chunks", "backfill", "--models-dir", models.path])
        #expect(backfill.status == 0 && backfill.stdout.hasPrefix("0 chunk list(s) written"), "\(backfill.stdout)\(backfill.stderr)")
        #expect(try modelctl(["verify", "--models-dir", models.path]).status == 1)
    }

    /// A file that does not match the catalog is reported once, as before: its chunk list is
    /// not judged against bytes that are wrong anyway.
    @Test func aBadModelFileIsOneProblem_notTwo_SPEC7_1() throws {
        let a = try publish(100_000, seed: 52)
        try Data(count: 10).write(to: models.appendingPathComponent(a.file))
        try FileManager.default.removeItem(at: list(a.file))
        let result = try modelctl(["verify", "--models-dir", models.path])
        #expect(result.status == 1 && result.stdout == "\(a.id) \(a.file): size 10 bytes, catalog says 100000\n", "\(result.stdout)")
        #expect(result.stderr == "modelctl: 1 of 1 files in \(models.path) do not match the catalog\n", "\(result.stderr)")
    }
}

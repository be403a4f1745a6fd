import DurableFiles
import Foundation
import Testing

/// DurableFile.appendLine survives a crash mid-append (issue 26): a real process appending
/// numbered lines through it (durable-append-loop) is SIGKILLed at random points, again and
/// again. Every line read back is then whole and in sequence — a torn tail a kill left is cut
/// off by the next run's first append — and a torn tail made by hand is repaired the same way.
@Suite struct DurableAppendCrashTests {
    /// The file's whole lines, those from `checkedFrom` on checked against the helper's
    /// `n:<pad>:n` form in order (an issue recorded for the first that is not; lines before it
    /// were checked earlier, and an append never rewrites them), and its torn tail (empty when none).
    private func read(_ path: String, checkedFrom: Int = 0) throws -> (whole: [ArraySlice<UInt8>], tail: ArraySlice<UInt8>) {
        let bytes = try #require(try DurableFile.read(path))
        var lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        let tail = lines.removeLast()
        for n in min(checkedFrom, lines.count)..<lines.count {
            let line = lines[n], head = Array("\(n):".utf8), foot = Array(":\(n)".utf8)
            let pad = line.dropFirst(head.count).dropLast(foot.count)
            guard line.count == head.count + n * 7919 % (16 << 10) + foot.count, line.starts(with: head),
                  line.suffix(foot.count).elementsEqual(foot), pad.allSatisfy({ $0 == UInt8(ascii: "x") }) else {
                Issue.record("line \(n) is not whole: \(String(decoding: line.prefix(40), as: UTF8.self))… (\(line.count) bytes)")
                break
            }
        }
        return (lines, tail)
    }

    @Test func appendLine_SIGKILLedMidAppend_readsBackWholeLines_andRepairsATornTail() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("append-crash-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/lines.jsonl"
        var whole = 0
        var size: Int64 = 0
        var kills = 0
        let deadline = Date().addingTimeInterval(20)
        while kills < 20 && Date() < deadline {
            // Killed only once it has appended: every round crashes a process mid-stream.
            try KilledWriter.run(TestBinaries.durableAppendLoop, [path]) {
                ((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int64) ?? 0) > size
            }
            let now = try read(path, checkedFrom: max(0, whole - 1))
            #expect(now.whole.count >= whole, "a whole line was lost")
            whole = now.whole.count
            size = Int64(now.whole.reduce(0) { $0 + $1.count + 1 } + now.tail.count)
            kills += 1
        }
        #expect(kills >= 8, "only \(kills) kills in 20 s")

        // A torn tail (the first bytes of line `whole`, as a cut write leaves them), then one
        // more run: its first append cuts the tail off and goes on at line `whole`, whole.
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("\(whole):xxxx".utf8))
        try handle.close()
        #expect(try read(path, checkedFrom: whole).tail.count == "\(whole):xxxx".utf8.count)
        try KilledWriter.run(TestBinaries.durableAppendLoop, [path]) { ((try? read(path, checkedFrom: whole).whole.count) ?? 0) > whole }
        #expect(try read(path).whole.count > whole, "the next run did not append after the torn tail")
    }
}

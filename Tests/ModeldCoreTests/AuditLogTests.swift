import Console
import Foundation
@testable import ModeldCore
import ModelCatalog
import Testing

/// The audit view's reader (SPEC §15.1: the last 200 lines, filtered): read backwards from the
/// end of `data/audit.jsonl`, 64 KiB at a time, lines across a chunk boundary whole.
@Suite struct AuditLogTests {
    @Test func recent_readsTheLastMatchingLinesNewestFirst_acrossChunks_andSkipsATornTail() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("audit-\(UUID().uuidString).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        // ~400 KiB (written at once: 3,000 fsynced appends would be slow): several chunks, lines
        // cut by their boundaries, and a torn last line an append never finished.
        var text: [UInt8] = []
        for n in 0..<3_000 {
            text += AuditEntry.json(time: Timestamp(millisecondsSinceEpoch: Int64(n)), action: "a\(n)", actor: n % 3 == 0 ? "ann" : "bob",
                                    peer: "10.0.0.\(n % 250)", session: nil, subject: .token(name: "t\(n)", role: .viewer)) + [0x0A]
        }
        try Data(text + Array(#"{"ts":"1970-01-01T00:00:09.999Z","action":"torn","actor":"ann""#.utf8)).write(to: URL(fileURLWithPath: path))
        let log = AuditLog(path: path)

        let ann = log.recent(limit: 200) { $0.actor == "ann" }
        #expect(ann.count == 200)
        #expect(ann.map(\.action) == stride(from: 2_997, to: 2_997 - 600, by: -3).map { "a\($0)" })
        let all = log.recent(limit: 5_000) { _ in true }
        #expect(all.count == 3_000 && all.last?.action == "a0" && all.first?.action == "a2999")
        #expect(AuditLog(path: path + ".missing").recent(limit: 10) { _ in true }.isEmpty)
    }
}

import Foundation
import GuardRuntime
import Testing

/// SPEC §18 / §5: the guard's tail over local and shipped directories counts a batch stored by
/// two instances once, and keeps the newest event read per instance.
@Suite struct GuardTailDedupTests {
    static func line(_ batch: String, _ seq: Int, _ instance: String, _ at: String) -> String {
        #"{"name":"n","client_id":"c1","batch_id":"\#(batch)","seq":\#(seq),"instance":"\#(instance)","received_at":"\#(at)"}"#
    }

    @Test func batchInTwoDirectories_countedOnce_newestPerInstance_SPEC18() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("tail-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        for (dir, instance, batches) in [("local", "a", ["b1", "b2"]), ("shipped", "b", ["b2", "b3"])] {
            try FileManager.default.createDirectory(atPath: "\(root)/\(dir)/2026-12-01", withIntermediateDirectories: true)
            let lines = batches.enumerated().flatMap { n, b in
                (0..<2).map { Self.line(b, $0, instance, "2026-12-01T10:00:0\(n).000Z") }
            }
            try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: "\(root)/\(dir)/2026-12-01/\(instance)-000001.jsonl"))
        }
        var tail = GuardTail(directories: ["\(root)/local", "\(root)/shipped"], firstDay: "2026-12-01", dedupWindowHours: 48)
        var batches: [String] = []
        tail.poll { batches.append($0.batchID ?? "-") }
        #expect(batches == ["b1", "b1", "b2", "b2", "b3", "b3"])
        #expect(tail.duplicates == 2)
        #expect(tail.newestEvent == ["a": "2026-12-01T10:00:01.000Z", "b": "2026-12-01T10:00:01.000Z"])
        tail.poll { batches.append($0.batchID ?? "-") }
        #expect(batches.count == 6, "nothing is read twice")
    }

    static func write(_ root: String, _ dir: String, _ day: String, _ instance: String, _ batches: [String]) throws {
        try FileManager.default.createDirectory(atPath: "\(root)/\(dir)/\(day)", withIntermediateDirectories: true)
        let lines = batches.flatMap { b in (0..<2).map { Self.line(b, $0, instance, "\(day)T10:00:00.000Z") } }
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: "\(root)/\(dir)/\(day)/\(instance)-000001.jsonl"))
    }

    /// The tail keeps a window of days' keys: it reads day by day across the directories, so a
    /// shipped copy of a batch of the first day still meets the local one though the local
    /// directory holds days beyond the window, and a month of traffic leaves the window's keys.
    @Test func windowedDedup_readsDayByDayAcrossDirectories_andForgetsOldDays() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("tail-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        try Self.write(root, "local", "2026-12-01", "a", ["b1"])
        try Self.write(root, "local", "2026-12-09", "a", ["b9"])
        try Self.write(root, "shipped", "2026-12-01", "b", ["b1"])
        var tail = GuardTail(directories: ["\(root)/local", "\(root)/shipped"], firstDay: "2026-12-01", dedupWindowHours: 48)
        var batches: [String] = []
        tail.poll { batches.append($0.batchID ?? "-") }
        #expect(batches == ["b1", "b1", "b9", "b9"])
        #expect(tail.duplicates == 2)
        #expect(tail.dedupKeys == 1, "day 1 is more than 48 h before day 9")
        for day in 10...30 { try Self.write(root, "shipped", "2026-12-\(day)", "b", ["d\(day)"]) }
        tail.poll { batches.append($0.batchID ?? "-") }
        #expect(batches.count == 4 + 21 * 2)
        #expect(tail.dedupKeys == 3, "days 28-30")
    }
}

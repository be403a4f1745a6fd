import Foundation
import Testing
@testable import ModeldClient

/// The batched check's pure parts (SPEC §17.2): which queued batches ride along, a combined
/// batch id that depends only on the riders, the body, and the answer read back.
@Suite struct BatchedCheckTests {
    private func batch(_ id: String, events: Int, bytes: Int = 40) -> EventQueue.Batch {
        EventQueue.Batch(file: URL(fileURLWithPath: "/q/0_\(id).jsonl"), batchID: id,
                         lines: (0..<events).map { _ in Data(("{\"name\":\"" + String(repeating: "x", count: max(0, bytes - 12)) + "\"}").utf8) })
    }

    private func part(_ channel: String, _ events: EventQueue.Batch?) -> BatchedCheck.Part {
        BatchedCheck.Part(channel: channel, clientID: "c", installed: nil, events: events)
    }

    @Test func ridersStayWithinOneUpload() {
        let parts = [part("a", batch("1", events: 600)), part("b", batch("2", events: 500)), part("c", batch("3", events: 400)), part("d", nil)]
        #expect(BatchedCheck.riders(parts).map(\.channel) == ["a", "c"])   // b would pass 1,000 events
        let big = [part("a", batch("1", events: 2, bytes: 200_000)), part("b", batch("2", events: 1, bytes: 200_000))]
        #expect(BatchedCheck.riders(big).map(\.channel) == ["a"])           // b would pass 512 KiB
    }

    @Test func batchIDDependsOnlyOnTheRiders() {
        let one = [("a", batch("1", events: 1)), ("b", batch("2", events: 1))].map { (channel: $0.0, batch: $0.1) }
        let id = BatchedCheck.batchID(one)
        #expect(id.count == 64 && id.allSatisfy { $0.isHexDigit })
        #expect(BatchedCheck.batchID(one.reversed()) == id)
        #expect(BatchedCheck.batchID([one[0]]) != id)
        #expect(BatchedCheck.batchID([(channel: "b", batch: batch("1", events: 1)), (channel: "a", batch: batch("2", events: 1))]) != id)
    }

    @Test func bodyAndAnswers() throws {
        let sha = String(repeating: "a", count: 64)
        let parts = [BatchedCheck.Part(channel: "a", clientID: "c-1", installed: sha, events: batch("1", events: 2)), part("b", nil)]
        let body = BatchedCheck.body(clientID: "c-1", parts: parts, riders: BatchedCheck.riders(parts))
        let object = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
        #expect(object["channels"] as? [String] == ["a", "b"] && object["client_id"] as? String == "c-1")
        #expect(object["installed"] as? [String: String] == ["a": sha])
        #expect((object["events"] as? [Any])?.count == 2 && (object["batch_id"] as? String)?.count == 64)
        let plain = try #require(try JSONSerialization.jsonObject(with: BatchedCheck.body(clientID: "c", parts: [part("b", nil)], riders: [])) as? [String: Any])
        #expect(plain["events"] == nil && plain["batch_id"] == nil)

        let answers = try BatchedCheck.answers(Array(#"{"answers":{"a":{"id":"x"},"b":null}}"#.utf8), channels: ["a", "b"])
        #expect(answers["b"]! == nil && answers["a"]! != nil)
        #expect(throws: ModeldClientError.self) { try BatchedCheck.answers(Array(#"{"answers":{"a":null}}"#.utf8), channels: ["a", "b"]) }
        #expect(throws: ModeldClientError.self) { try BatchedCheck.answers(Array(#"{"answers":{"a":7}}"#.utf8), channels: ["a"]) }
        #expect(throws: ModeldClientError.self) { try BatchedCheck.answers(Array("[]".utf8), channels: ["a"]) }
    }
}

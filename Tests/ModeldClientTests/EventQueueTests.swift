import Foundation
@testable import ModeldClient
import Testing

struct EventQueueTests {
    let directory: URL
    let queue: EventQueue

    init() throws {
        directory = try makeTemporaryDirectory("eventqueue")
        queue = EventQueue(directory: directory)
    }

    @Test func sealing_persistsTheBatchIdBeforeSending_andRetriesReuseIt() throws {
        try queue.record(OutcomeEvent(name: "a", timestamp: Date(timeIntervalSince1970: 1), outcome: "x"))
        try queue.record(OutcomeEvent(name: "b", timestamp: Date(timeIntervalSince1970: 2)))
        let first = try queue.pending()
        #expect(first.count == 1 && first[0].lines.count == 2)
        try queue.record(OutcomeEvent(name: "c"))
        let again = try queue.pending()
        #expect(again.count == 2 && again[0].batchID == first[0].batchID)
        let body = String(decoding: EventQueue.body(first[0], clientID: "c1"), as: UTF8.self)
        #expect(body == #"{"batch_id":"\#(first[0].batchID)","client_id":"c1","events":[{"name":"a","outcome":"x","ts":1000},{"name":"b","ts":2000}]}"#)
        try queue.acknowledge(again[0])
        #expect(try queue.pending().map(\.lines.count) == [1])
    }

    @Test func split_halvesWithDeterministicIds_andASingleEventIsQuarantined() throws {
        for i in 0..<5 { try queue.record(OutcomeEvent(name: "e\(i)")) }
        let batch = try #require(try queue.pending().first)
        try queue.split(batch)
        let halves = try queue.pending()
        #expect(halves.map(\.batchID) == [batch.batchID + "-000", batch.batchID + "-001"])
        #expect(halves.map(\.lines.count) == [2, 3])
        try queue.split(halves[0])
        let quarters = try queue.pending()
        try queue.split(quarters[0])
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("quarantine").path))
        #expect(queue.pendingEventCount() == 4)
    }

    @Test func moreThanAThousandEvents_areSealedIntoSeveralBatches() throws {
        for i in 0..<1001 { try queue.record(OutcomeEvent(name: "e\(i)")) }
        #expect(try queue.pending().map(\.lines.count) == [1000, 1])
    }

    @Test func aTornLineFromACrash_neitherSwallowsTheNextEventNorSpoilsTheBatch() throws {
        try Data((#"{"name":"a","ts":1}"# + "\n" + #"{"name":"tor"#).utf8).write(to: directory.appendingPathComponent("queue.jsonl"))
        try queue.record(OutcomeEvent(name: "b", timestamp: Date(timeIntervalSince1970: 2)))
        let batch = try #require(try queue.pending().first)
        #expect(batch.lines.map { String(decoding: $0, as: UTF8.self) } == [#"{"name":"a","ts":1}"#, #"{"name":"b","ts":2000}"#])
    }

    @Test func invalidEvents_areRefusedAtRecord() {
        #expect(throws: ModeldClientError.self) { try queue.record(OutcomeEvent(name: "")) }
        #expect(throws: ModeldClientError.self) { try queue.record(OutcomeEvent(name: "n", value: .infinity)) }
    }

    @Test func bound_dropsTheOldestWholeBatchesFirst_andCountsThem_SPEC9_2() throws {
        let bounded = EventQueue(directory: directory)
        bounded.limit = 5
        for i in 0..<3 { try bounded.record(OutcomeEvent(name: "old\(i)")) }
        _ = try bounded.pending()                      // sealed: one batch of 3 (as a failed send leaves it)
        for i in 0..<2 { try bounded.record(OutcomeEvent(name: "new\(i)")) }
        #expect(bounded.pendingEventCount() == 5 && bounded.droppedEventCount() == 0)
        try bounded.record(OutcomeEvent(name: "over"))  // 6 > 5: the oldest batch (3) goes whole
        #expect(bounded.droppedEventCount() == 3)
        let names = try bounded.pending().flatMap(\.lines).map { String(decoding: $0, as: UTF8.self) }
        #expect(names.count == 3 && names.allSatisfy { !$0.contains("old") } && names.last?.contains("over") == true)
        // The count survives a new queue over the same directory (a relaunch).
        #expect(EventQueue(directory: directory).droppedEventCount() == 3)
    }
}

/// SPEC §13.2: `record()` costs the same with 10 or 10,000 events queued (no rescan of the
/// queue, no fsync per event), and the events are all there.
struct EventQueueCostTests {
    @Test func tenThousandRecords_costTheSameAtTheEndAsAtTheStart() throws {
        let directory = try makeTemporaryDirectory("event-cost")
        let queue = EventQueue(directory: directory, limit: 20_000)  // the bound is checked on every record
        var thousands: [Duration] = []
        let clock = ContinuousClock()
        for _ in 0..<10 {
            thousands.append(try clock.measure {
                for i in 0..<1000 { try queue.record(OutcomeEvent(name: "e\(i)", outcome: "ok", value: Double(i))) }
            })
        }
        try queue.sync()
        #expect(queue.pendingEventCount() == 10_000)
        let first = thousands[0], last = thousands[9]
        #expect(last < first * 3 + .milliseconds(50), "first 1000: \(first), last 1000: \(last)")
        #expect(thousands.reduce(.zero, +) < .seconds(10), "\(thousands)")
    }
}

import Foundation
import Testing

extension EventsFixture {
    /// Every segment file under `data/events`, oldest day first, then by name.
    static func segmentFiles(_ dataDir: URL) -> [URL] {
        let root = dataDir.appendingPathComponent("events")
        let fm = FileManager.default
        return ((try? fm.contentsOfDirectory(atPath: root.path)) ?? []).sorted().flatMap { day in
            let dir = root.appendingPathComponent(day)
            return ((try? fm.contentsOfDirectory(atPath: dir.path)) ?? []).sorted().filter { $0.hasSuffix(".jsonl") }
                .map { dir.appendingPathComponent($0) }
        }
    }

    /// The real `modelctl events export`: each batch_id's exported event objects, and the count
    /// of output lines that are not a JSON object with a batch_id.
    static func exportedBatches(_ dataDir: URL) throws -> (batches: [String: [[String: Any]]], unparsable: Int) {
        let export = try modelctl(["events", "export", "--data-dir", dataDir.path])
        guard export.status == 0 else { throw HTTPClientError.io("modelctl events export: \(export.status) \(export.stderr)") }
        var batches: [String: [[String: Any]]] = [:]
        var unparsable = 0
        for line in export.stdout.split(separator: "\n") {
            guard let o = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let id = o["batch_id"] as? String else { unparsable += 1; continue }
            batches[id, default: []].append(o)
        }
        return (batches, unparsable)
    }

    /// One line as the store writes it for event `seq` of batch `id` (client-1, sdk 2.3).
    static func storedLine(_ id: String, seq: Int, instance: String) -> String {
        String(event().dropLast()) + #","received_at":"2026-11-24T00:00:00.000Z","batch_id":"\#(id)","client_id":"client-1","sdk":"2.3","seq":\#(seq),"instance":"\#(instance)"}"# + "\n"
    }
}

/// What a SIGKILL can leave in a segment, and what readers and the owner make of it (SPEC §5).
@Suite(.serialized) final class EventsCrashTests {
    /// A SIGKILL inside one large write of a group {tear-b, tear-c} stops the copy at a page
    /// boundary: tear-b's lines whole, tear-c's first line whole, its second torn — none of them
    /// acknowledged. Readers must not count them, the owner must cut them at start-up (the file
    /// is exactly as it was after its last commit), and the clients' retries store both whole.
    @Test func sigkillInsideAMultiBatchWrite_nothingOfItCounted_ownerCutsIt_retriesStoredWhole_SPEC5() throws {
        let server = try ModeldServer(environment: ["MODELD_INSTANCE_ID": "tear", "MODELD_ACCESS_LOG": "off"])
        let three = (0..<3).map { _ in EventsFixture.event() }
        let first = try EventsHTTP.postEvents(server.port, EventsFixture.batch("tear-a", events: three))
        #expect(first.status == 200, "\(first.text)")
        try server.kill()

        let segment = try #require(EventsFixture.segmentFiles(server.dataDir).last)
        let committed = try Data(contentsOf: segment)
        let cut = (0..<3).map { EventsFixture.storedLine("tear-b", seq: $0, instance: "tear") }.joined()
            + EventsFixture.storedLine("tear-c", seq: 0, instance: "tear")
            + EventsFixture.storedLine("tear-c", seq: 1, instance: "tear").prefix(40)
        let handle = try FileHandle(forWritingTo: segment)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(cut.utf8))
        try handle.close()

        // A reader of the crashed (live, unrepaired) segment counts only what was committed.
        let early = try EventsFixture.exportedBatches(server.dataDir)
        #expect(early.unparsable == 0)
        #expect(early.batches.mapValues(\.count) == ["tear-a": 3], "\(early.batches.keys.sorted())")

        try server.restart()
        #expect(server.log.contains("repaired torn event segments"), "\(server.log)")
        #expect(try Data(contentsOf: segment) == committed, "the owner cut everything after the last commit")

        for id in ["tear-b", "tear-c"] {
            let retry = try EventsHTTP.postEvents(server.port, EventsFixture.batch(id, events: three))
            #expect(retry.status == 200 && retry.json["accepted"] as? Int == 3, "\(id): \(retry.text)")
        }
        let export = try EventsFixture.exportedBatches(server.dataDir)
        #expect(export.unparsable == 0)
        #expect(export.batches.mapValues(\.count) == ["tear-a": 3, "tear-b": 3, "tear-c": 3])
        for (id, events) in export.batches {
            #expect(events.compactMap { $0["seq"] as? Int }.sorted() == [0, 1, 2], "\(id)")
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import DurableFiles
@testable import EventStore
import Synchronization
import Testing

/// Switchable write/fdatasync failures for the store's I/O seam.
final class Faults: Sendable {
    let syncError = Mutex<Int32?>(nil)
    let writeError = Mutex<Int32?>(nil)

    func set(_ call: String, _ code: Int32?) {
        if call == "fdatasync" { syncError.withLock { $0 = code } } else { writeError.withLock { $0 = code } }
    }

    var io: SegmentSyscalls {
        SegmentSyscalls(
            write: { fd, buf in
                guard let e = self.writeError.withLock({ $0 }) else { return Glibc.write(fd, buf.baseAddress, buf.count) }
                // A short write first, as a filling disk does, then the error.
                if buf.count > 1 { return Glibc.write(fd, buf.baseAddress, buf.count / 2) }
                errno = e
                return -1
            },
            fdatasync: { fd in
                guard let e = self.syncError.withLock({ $0 }) else { return Glibc.fdatasync(fd) }
                errno = e
                return -1
            }
        )
    }
}

final class TestClock: Sendable {
    let now: Mutex<Int64>
    init(_ ms: Int64) { now = Mutex(ms) }
    func set(_ ms: Int64) { now.withLock { $0 = ms } }
}

final class Results: Sendable {
    let items = Mutex<[(EventSubmitResult, Int)]>([])
}

@Suite(.serialized) struct EventStoreTests {
    @Test func groupCommit_concurrentBatchesShareOneFdatasync_SPEC4_2() throws {
        let dir = makeTempDirectory()
        defer { removeTree(dir) }
        let fsyncs = Mutex<[Double]>([])
        let store = try openStore(dir) { $0.fsyncObserver = { s in fsyncs.withLock { $0.append(s) } } }
        let results = Results()
        let submitted = DispatchGroup()
        let threads = 16, perThread = 20
        DispatchQueue.concurrentPerform(iterations: threads) { t in
            for b in 0..<perThread {
                let batch = try! parseBatch(batchBody(id: "t\(t)-b\(b)", count: 2))
                submitted.enter()
                store.submit(batch, sdk: "2.3") { result in
                    // Durable before the answer: the batch's lines are on disk when its callback runs.
                    let onDisk = (try? allLines(dir).filter { $0.contains("\"batch_id\":\"t\(t)-b\(b)\"") }.count) ?? 0
                    results.items.withLock { $0.append((result, store.counters.commits * 10 + onDisk)) }
                    submitted.leave()
                }
            }
        }
        submitted.wait()
        let counters = store.counters
        store.close()
        let all = results.items.withLock { $0 }
        #expect(all.count == threads * perThread)
        #expect(all.allSatisfy { $0.0 == .accepted(2) && $0.1 >= 12 && $0.1 % 10 == 2 })
        #expect(counters.batches == threads * perThread)
        #expect(counters.commits < counters.batches)
        #expect(fsyncs.withLock { $0.count } == counters.commits)
        #expect(counters.eventsAccepted == threads * perThread * 2)
        #expect(try allLines(dir).count == threads * perThread * 2)
    }

    @Test func batch_invalidEventStoresNothing_SPEC4_2() throws {
        let dir = makeTempDirectory()
        defer { removeTree(dir) }
        let store = try openStore(dir)
        let body = bytes(#"{"batch_id":"b","events":[{"name":"ok","ts":1},{"name":"bad"}]}"#)
        do {
            _ = try parseBatch(body)
            Issue.record("expected invalid_event")
        } catch {
            #expect(error.message == "events[1].ts: required")
            store.noteRejected(events: error.eventCount)
        }
        #expect(store.counters.eventsRejected == 2)
        #expect(store.counters.batches == 0)
        store.close()
        #expect(files(dir, suffix: ".jsonl").isEmpty)
    }

    @Test func dedup_inFlightDuplicateWaitsForCommit_SPEC4_2() throws {
        let dir = makeTempDirectory()
        defer { removeTree(dir) }
        let store = try openStore(dir)
        let batch = try parseBatch(batchBody(id: "same", count: 3))
        let results = Results()
        let done = DispatchGroup()
        for _ in 0..<8 {
            done.enter()
            store.submit(batch, sdk: nil) { r in
                results.items.withLock { $0.append((r, store.counters.commits)) }
                done.leave()
            }
        }
        done.wait()
        let all = results.items.withLock { $0 }
        #expect(all.filter { $0.0 == .accepted(3) }.count == 1)
        #expect(all.filter { $0.0 == .duplicate }.count == 7)
        #expect(all.allSatisfy { $0.1 == 1 }) // every answer, duplicates included, came after the one commit
        #expect(store.counters.eventsDuplicate == 21)
        // Same batch_id from another client is another batch.
        #expect(store.submitAndWait(try parseBatch(batchBody(id: "same", client: "c2", count: 1)), sdk: nil) == .accepted(1))
        store.close()
        #expect(try allLines(dir).count == 4)
    }

    @Test func dedup_survivesReopenFromIndex_SPEC5() throws {
        let dir = makeTempDirectory()
        defer { removeTree(dir) }
        var store = try openStore(dir)
        #expect(store.submitAndWait(try parseBatch(batchBody(id: "b1", count: 2)), sdk: nil) == .accepted(2))
        store.close()
        #expect(files(dir, suffix: ".jsonl.idx").count == 1)
        store = try openStore(dir)
        #expect(store.submitAndWait(try parseBatch(batchBody(id: "b1", count: 2)), sdk: nil) == .duplicate)
        store.close()
        #expect(try allLines(dir).count == 2)
    }

    @Test func dedup_openSegmentScannedAtStartUp_SPEC5() throws {
        let dir = makeTempDirectory()
        defer { removeTree(dir) }
        var store = try openStore(dir)
        #expect(store.submitAndWait(try parseBatch(batchBody(id: "b1", count: 2)), sdk: nil) == .accepted(2))
        store.close()
        // As after a crash: the last segment has no index yet.
        for idx in files(dir, suffix: ".idx") { unlink(idx) }
        store = try openStore(dir)
        #expect(store.submitAndWait(try parseBatch(batchBody(id: "b1", count: 2)), sdk: nil) == .duplicate)
        store.close()
        #expect(files(dir, suffix: ".jsonl.idx").count == 1)
    }

    @Test func dedup_expiresAfterWindow_SPEC5() throws {
        let dir = makeTempDirectory()
        defer { removeTree(dir) }
        let clock = TestClock(1_763_719_200_000)
        let store = try openStore(dir) { $0.clock = { clock.now.withLock { $0 } }; $0.dedupWindowHours = 1 }
        let batch = try parseBatch(batchBody(id: "b1", count: 1))
        #expect(store.submitAndWait(batch, sdk: nil) == .accepted(1))
        clock.set(1_763_719_200_000 + 3_599_000)
        #expect(store.submitAndWait(batch, sdk: nil) == .duplicate)
        clock.set(1_763_719_200_000 + 3_601_000)
        #expect(store.submitAndWait(batch, sdk: nil) == .accepted(1))
        store.close()
    }

    /// What a SIGKILL inside one write leaves: whole lines of a batch never acknowledged, then a
    /// torn one, no commit record. Readers skip them all; the owner cuts them at reopen, forgets
    /// their key, and the retry is stored whole.
    @Test func repair_uncommittedLinesSkippedByReaderAndTruncatedAtReopen_SPEC5() throws {
        let dir = makeTempDirectory()
        defer { removeTree(dir) }
        var store = try openStore(dir)
        #expect(store.submitAndWait(try parseBatch(batchBody(id: "b1", count: 2)), sdk: nil) == .accepted(2))
        store.close()
        let segment = files(dir, suffix: ".jsonl")[0]
        let committed = fileSize(segment)
        for idx in files(dir, suffix: ".idx") { unlink(idx) }
        var cut: [UInt8] = []
        try parseBatch(batchBody(id: "b2", count: 3)).appendLines(to: &cut, receivedAt: "2026-11-24T00:00:00.000Z", sdk: nil, instance: "i1")
        appendRaw(segment, String(decoding: cut.dropLast(30), as: UTF8.self))
        #expect(try allLines(dir).count == 2)
        store = try openStore(dir)
        #expect(store.repairedSegments == [segment])
        #expect(fileSize(segment) == committed)
        #expect(store.submitAndWait(try parseBatch(batchBody(id: "b2", count: 3)), sdk: nil) == .accepted(3))
        store.close()
        #expect(try ExportStatsTests.export(dir).0 == ["b1/0", "b1/1", "b2/0", "b2/1", "b2/2"])
    }

    @Test func rotation_bySizeWritesIndexesAndReopenUsesThem_SPEC5() throws {
        let dir = makeTempDirectory()
        defer { removeTree(dir) }
        var store = try openStore(dir) { $0.segmentMaxBytes = 2000 }
        for b in 0..<10 {
            #expect(store.submitAndWait(try parseBatch(batchBody(id: "b\(b)", count: 5)), sdk: "1.0") == .accepted(5))
        }
        store.close()
        let segments = files(dir, suffix: ".jsonl")
        #expect(segments.count >= 5)
        #expect(files(dir, suffix: ".jsonl.idx").count == segments.count)
        #expect(segments.allSatisfy { fileSize($0) <= 2000 })
        #expect(segments.first!.hasSuffix("/i1-000001.jsonl"))
        let index = try #require(SegmentIndexFile.read(segments[0] + ".idx"))
        #expect(index.keys.first == DedupKey(clientID: "c1", batchID: "b0"))
        // Blank out the events: duplicates can now only be known from the indexes.
        for s in segments { _ = truncate(s, 0) }
        store = try openStore(dir) { $0.segmentMaxBytes = 2000 }
        for b in 0..<10 {
            #expect(store.submitAndWait(try parseBatch(batchBody(id: "b\(b)", count: 5)), sdk: "1.0") == .duplicate)
        }
        #expect(store.submitAndWait(try parseBatch(batchBody(id: "new", count: 1)), sdk: "1.0") == .accepted(1))
        store.close()
        #expect(files(dir, suffix: ".jsonl").last!.hasSuffix("-\(String(segments.count + 1).leftPadded(6)).jsonl"))
    }

    @Test func rotation_atUTCMidnight_SPEC5() throws {
        let dir = makeTempDirectory()
        defer { removeTree(dir) }
        let midnight: Int64 = 1_763_769_600_000 // 2025-11-22T00:00:00Z
        let clock = TestClock(midnight - 100)
        let store = try openStore(dir) { $0.clock = { clock.now.withLock { $0 } } }
        #expect(store.submitAndWait(try parseBatch(batchBody(id: "late", count: 1)), sdk: nil) == .accepted(1))
        clock.set(midnight + 100)
        #expect(store.submitAndWait(try parseBatch(batchBody(id: "early", count: 1)), sdk: nil) == .accepted(1))
        store.close()
        let segments = files(dir, suffix: ".jsonl")
        #expect(segments.map { $0.dropFirst(dir.count + 1).prefix(10) } == ["2025-11-21", "2025-11-22"])
        #expect(try allLines(dir)[0].contains(#""received_at":"2025-11-21T23:59:59.900Z""#))
        #expect(try allLines(dir)[1].contains(#""received_at":"2025-11-22T00:00:00.100Z""#))
    }

    @Test func rotation_byAgeFromFirstCommit_SPEC9_1() throws {
        let dir = makeTempDirectory()
        defer { removeTree(dir) }
        let start: Int64 = 1_763_776_800_000 // 2025-11-22T02:00:00Z
        let clock = TestClock(start)
        let store = try openStore(dir) { $0.clock = { clock.now.withLock { $0 } }; $0.segmentMaxMillis = 60_000 }
        #expect(store.submitAndWait(try parseBatch(batchBody(id: "a", count: 1)), sdk: nil) == .accepted(1))
        clock.set(start + 59_999)
        #expect(store.submitAndWait(try parseBatch(batchBody(id: "b", count: 1)), sdk: nil) == .accepted(1))
        clock.set(start + 60_000)
        #expect(store.submitAndWait(try parseBatch(batchBody(id: "c", count: 1)), sdk: nil) == .accepted(1))
        store.close()
        let segments = files(dir, suffix: ".jsonl")
        #expect(segments.map { $0.split(separator: "/").last! } == ["i1-000001.jsonl", "i1-000002.jsonl"])
        #expect(try allLines(dir).count == 3)
    }

    @Test func rotation_idleSegmentSealedByAgeWithSuccessor_SPEC9_1() throws {
        let dir = makeTempDirectory()
        defer { removeTree(dir) }
        let store = try openStore(dir) { $0.segmentMaxMillis = 300 }
        #expect(store.submitAndWait(try parseBatch(batchBody(id: "a", count: 2)), sdk: nil) == .accepted(2))
        // Nothing else is submitted: the writer itself must seal the segment once it is 300 ms old.
        let deadline = POSIX.monotonicSeconds() + 10
        while files(dir, suffix: ".jsonl.idx").isEmpty, POSIX.monotonicSeconds() < deadline { usleep(20_000) }
        #expect(files(dir, suffix: ".jsonl.idx").map { $0.split(separator: "/").last! } == ["i1-000001.jsonl.idx"])
        while files(dir, suffix: ".jsonl").count < 2, POSIX.monotonicSeconds() < deadline { usleep(20_000) }
        #expect(files(dir, suffix: ".jsonl").count == 2)
        // The successor stays empty and does not age; closing removes it.
        store.close()
        #expect(files(dir, suffix: ".jsonl").map { $0.split(separator: "/").last! } == ["i1-000001.jsonl"])
    }

    @Test func lock_secondStoreWithSameInstanceRefused_SPEC2() throws {
        let dir = makeTempDirectory()
        defer { removeTree(dir) }
        let store = try openStore(dir)
        #expect(throws: EventStoreOpenError.instanceLocked(path: "\(dir)/i1.lock")) { try openStore(dir) }
        let other = try openStore(dir, instance: "i2")
        other.close()
        store.close()
        try openStore(dir).close()
        #expect(throws: EventStoreOpenError.invalidInstance("../x")) { try openStore(dir, instance: "../x") }
    }

    @Test(arguments: [("fdatasync", EIO), ("write", ENOSPC)])
    func failure_failsPendingTruncatesAndRecovers_SPEC4_2(_ call: String, _ code: Int32) throws {
        let dir = makeTempDirectory()
        defer { removeTree(dir) }
        let faults = Faults()
        let store = try openStore(dir) { $0.io = faults.io }
        #expect(store.submitAndWait(try parseBatch(batchBody(id: "a", count: 2)), sdk: nil) == .accepted(2))
        let first = files(dir, suffix: ".jsonl")[0]
        let committed = fileSize(first)
        faults.set(call, code)
        let failed = store.submitAndWait(try parseBatch(batchBody(id: "b", count: 2)), sdk: nil)
        guard case .unavailable(let message) = failed else { Issue.record("expected unavailable, got \(failed)"); return }
        #expect(message.hasPrefix("\(call) \(first): "))
        #expect(fileSize(first) == committed)
        #expect(DurableFile.exists(first + ".idx"))
        faults.set(call, nil)
        // The failed batch was not remembered: its retry is stored, in a new segment.
        #expect(store.submitAndWait(try parseBatch(batchBody(id: "b", count: 2)), sdk: nil) == .accepted(2))
        #expect(store.submitAndWait(try parseBatch(batchBody(id: "a", count: 2)), sdk: nil) == .duplicate)
        let counters = store.counters
        store.close()
        #expect(files(dir, suffix: ".jsonl").count == 2)
        #expect(try allLines(dir).count == 4)
        #expect(counters.failedCommits == 1)
    }

    @Test func failure_realFullTmpfsAnswersUnavailableThenRecovers_SPEC4_2() throws {
        let dir = makeTempDirectory()
        defer { removeTree(dir) }
        guard system("mount -t tmpfs -o size=256k tmpfs '\(dir)' 2>/dev/null") == 0 else {
            print("skipped: mounting a tmpfs is not permitted here (the injected-failure test covers the logic)")
            return
        }
        defer { _ = system("umount '\(dir)'") }
        let store = try openStore(dir)
        #expect(store.submitAndWait(try parseBatch(batchBody(id: "a", count: 2)), sdk: nil) == .accepted(2))
        _ = system("dd if=/dev/zero of='\(dir)/filler' bs=4k 2>/dev/null")
        let big = try parseBatch(batchBody(id: "big", count: 200))
        guard case .unavailable = store.submitAndWait(big, sdk: nil) else { Issue.record("expected unavailable on a full disk"); return }
        unlink("\(dir)/filler")
        #expect(store.submitAndWait(big, sdk: nil) == .accepted(200))
        store.close()
        #expect(try allLines(dir).count == 202)
    }

    @Test func close_flushesPendingAndRefusesLater_SPEC8() throws {
        let dir = makeTempDirectory()
        defer { removeTree(dir) }
        let store = try openStore(dir)
        let results = Results()
        for b in 0..<50 {
            store.submit(try parseBatch(batchBody(id: "b\(b)", count: 1)), sdk: nil) { r in results.items.withLock { $0.append((r, 0)) } }
        }
        store.close()
        #expect(results.items.withLock { $0.count } == 50)
        #expect(store.submitAndWait(try parseBatch(batchBody(id: "late", count: 1)), sdk: nil) == .unavailable("event store closed"))
        #expect(try allLines(dir).count == 50)
    }

    /// 64 clients, each with one batch of 50 in flight at a time (the next is submitted from the
    /// previous one's completion, as the HTTP engine's connections would).
    @Test func throughput_64SubmittersBatchesOf50() throws {
        let dir = makeTempDirectory()
        defer { removeTree(dir) }
        let store = try openStore(dir)
        let submitters = 64, batchesEach = 20
        let raw = (0..<submitters).map { s in (0..<batchesEach).map { batchBody(id: "s\(s)-\($0)", count: 50) } }
        let parseStarted = POSIX.monotonicSeconds()
        let bodies = raw.map { $0.map { try! parseBatch($0) } }
        let parseSeconds = POSIX.monotonicSeconds() - parseStarted
        let done = DispatchGroup()
        @Sendable func submit(_ s: Int, _ b: Int) {
            store.submit(bodies[s][b], sdk: "2.3") { _ in
                if b + 1 < batchesEach { submit(s, b + 1) } else { done.leave() }
            }
        }
        let started = POSIX.monotonicSeconds()
        for s in 0..<submitters {
            done.enter()
            submit(s, 0)
        }
        done.wait()
        let elapsed = POSIX.monotonicSeconds() - started
        let counters = store.counters
        store.close()
        let events = submitters * batchesEach * 50
        #expect(counters.eventsAccepted == events)
        print("throughput: parse+validate \(Int(Double(events) / parseSeconds)) events/s; submit→durable \(Int(Double(events) / elapsed)) events/s, \(counters.batches) batches in \(counters.commits) commits")
    }
}

extension String {
    func leftPadded(_ width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}

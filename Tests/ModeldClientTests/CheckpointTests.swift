import BinaryText
import ChunkList
import ContentDigest
import Foundation
@testable import ModeldClient
import Synchronization
import Testing

/// The pieces that take checkpoints and hashing off the receiving thread (docs/decisions/client.md).
struct CheckpointTests {
    let directory: URL
    let release: ReleaseDocument

    init() throws {
        directory = try makeTemporaryDirectory("checkpoint")
        release = ReleaseDocument(url: "http://h/models/a.bin", id: UUID().uuidString.lowercased(), sha256: String(repeating: "a", count: 64),
                          size: 1 << 40, sdkMin: "2.0", channel: "stable")
    }

    @Test func theRecord_isRewrittenInPlaceAtOneLength_andReadsBackOnlyForItsRelease() throws {
        let file = CheckpointFile(release: release, directory: directory)
        let url = directory.appendingPathComponent("\(release.id).json")
        #expect(file.recordedOffset() == nil)
        try file.record(8 << 20)
        let inode = try FileManager.default.attributesOfItem(atPath: url.path)[.systemFileNumber] as? Int
        try file.record(1 << 39)
        #expect(file.recordedOffset() == 1 << 39)
        try file.record(16 << 20)  // shorter than the one before: the padding leaves no stale digits
        #expect(file.recordedOffset() == 16 << 20)
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        #expect(attributes[.systemFileNumber] as? Int == inode && attributes[.size] as? Int == 192)
        file.close()

        var other = release
        other.sha256 = String(repeating: "b", count: 64)
        #expect(CheckpointFile(release: other, directory: directory).recordedOffset() == nil)
        try Data("{\"sha256\":\"aaaa".utf8).write(to: url)  // torn
        #expect(CheckpointFile(release: release, directory: directory).recordedOffset() == nil)
        try file.remove(durably: true)
        #expect(!FileManager.default.fileExists(atPath: url.path))
    }

    @Test func theSyncer_runsJobsInOrder_andReportsTheFirstFailure() throws {
        final class Log: Sendable { let order = Mutex<[Int]>([]) }
        let syncer = CheckpointSyncer(), log = Log()
        for i in 0..<5 { try syncer.submit { log.order.withLock { $0.append(i) } } }
        try syncer.drain()
        #expect(log.order.withLock { $0 } == [0, 1, 2, 3, 4])
        try syncer.submit { throw ModeldClientError.io("first") }
        #expect(throws: ModeldClientError.io("first")) { try syncer.submit { Issue.record("ran after a failure") } }
        #expect(throws: ModeldClientError.io("first")) { try syncer.drain() }
    }

    @Test func theHasher_matchesAOneShotDigest() {
        let bytes = (0..<(3 << 20) + 5).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let hasher = StreamHasher()
        for start in stride(from: 0, to: bytes.count, by: 1 << 20) { hasher.update(Array(bytes[start..<min(start + (1 << 20), bytes.count)])) }
        #expect(Hex.encode(hasher.finalize()) == SHA256Hex.of(bytes))
    }
}

/// SPEC §13.2 (v6): a resume keeps the bytes past the checkpoint that match the chunk list.
struct PartialTailTests {
    @Test func theTailPastTheCheckpoint_isKeptChunkByChunkUpToTheFirstDamagedChunk() throws {
        let directory = try makeTemporaryDirectory("partial-tail")
        var random = SystemRandomNumberGenerator()
        let bytes = (0..<(1 << 20)).map { _ in UInt8.random(in: 0...255, using: &random) }
        var builder = ChunkListBuilder()
        builder.append(bytes)
        let list = builder.finish()
        let offsets = list.offsets
        #expect(list.chunks.count > 4)
        let release = ReleaseDocument(url: "http://h/models/a.bin", id: UUID().uuidString.lowercased(), sha256: SHA256Hex.of(bytes),
                              size: Int64(bytes.count), sdkMin: "2.0", channel: "stable")
        let part = directory.appendingPathComponent("\(release.id).part")
        // Chunks 0-2 intact (the checkpoint names a point inside chunk 1), chunk 3 damaged, the rest intact.
        var onDisk = bytes
        onDisk[Int(offsets[3]) + 5] ^= 1
        try Data(onDisk).write(to: part)
        try CheckpointFile(release: release, directory: directory).record(offsets[1] + 10)

        let kept = try PartialFile(release: release, directory: directory, chunks: list)
        #expect(kept.received == offsets[3])
        try Array(bytes[Int(offsets[3])...]).withUnsafeBytes { try kept.receive($0) }
        #expect(try kept.finish() == part)
        kept.close()

        // Without a list only the checkpoint's prefix is kept.
        try Data(onDisk).write(to: part)
        try CheckpointFile(release: release, directory: directory).record(offsets[1] + 10)
        let plain = try PartialFile(release: release, directory: directory)
        #expect(plain.received == offsets[1] + 10)
        plain.close()
    }
}

/// SPEC §13.2: a checkpoint is made durable once 64 MiB or 2 s have passed, whichever first;
/// and (v6) once the link has been silent for 2 s after bytes arrived.
struct CheckpointPolicyTests {
    static let stallRows: [(Int64, Duration, Bool)] = [
        (0, .seconds(30), false),             // nothing undurable: nothing to sync however long the stall
        (56 << 20, .milliseconds(1999), false),
        (56 << 20, .seconds(2), true),
        (1, .seconds(5), true),
    ]

    @Test(arguments: stallRows)
    func stalled(undurable: Int64, silence: Duration, stalled: Bool) {
        #expect(CheckpointPolicy.isStalled(undurable: undurable, silentFor: silence) == stalled)
    }

    static let rows: [(Int64, Duration, Bool)] = [
        (0, .seconds(10), false),            // nothing new: nothing to sync
        (4 << 20, .milliseconds(100), false), // v4's 4 MiB: no longer a reason
        ((64 << 20) - 1, .seconds(1), false),
        (64 << 20, .zero, true),
        (1, .seconds(2), true),
        (1, .milliseconds(1999), false),
    ]

    @Test(arguments: rows)
    func due(bytes: Int64, elapsed: Duration, due: Bool) {
        #expect(CheckpointPolicy.isDue(bytes: bytes, since: elapsed) == due)
    }
}

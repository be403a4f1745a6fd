import Foundation

/// The durable progress of a delta build (`partial/<id>.delta.json`): which target chunks are
/// in place (a bitmap; written only after the data it vouches for is fsynced) and the bytes
/// fetched so far. It names the release and its chunk list, so a resumed run never trusts a
/// record of another build.
struct DeltaCheckpoint: Codable, Equatable {
    var release: String
    var sha256: String
    var list: String
    var chunks: Int
    var done: Data
    var fetched: Int64

    init(release: ReleaseDocument, list: String, chunks: Int) {
        self.release = release.id
        sha256 = release.sha256
        self.list = list
        self.chunks = chunks
        done = Data(count: (chunks + 7) / 8)
        fetched = 0
    }

    mutating func markDone(_ index: Int) { done[index / 8] |= 1 << UInt8(index % 8) }

    var doneChunks: Set<Int> {
        Set((0..<chunks).filter { done[$0 / 8] & (1 << UInt8($0 % 8)) != 0 })
    }

    struct File: Sendable {
        let url: URL

        /// The record of this very build, or nil (none, unreadable, or another release or list).
        func load(release: ReleaseDocument, list: String) -> DeltaCheckpoint? {
            guard let data = try? Data(contentsOf: url), let c = try? JSONDecoder().decode(DeltaCheckpoint.self, from: data),
                  c.release == release.id, c.sha256 == release.sha256, c.list == list, c.done.count == (c.chunks + 7) / 8 else { return nil }
            return c
        }

        func save(_ checkpoint: DeltaCheckpoint) throws {
            try DiskIO.atomicWrite(try JSONEncoder().encode(checkpoint), to: url)
        }

        func remove() { try? FileManager.default.removeItem(at: url) }
    }
}

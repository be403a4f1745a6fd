import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `partial/<id>.json`: how many bytes of `<id>.part` are known to be fsynced (for a packed
/// file or patch, `partial/<id>.decoded.json`: how many of its bytes are decoded and fsynced). The first record
/// appears by a durable rename; later ones overwrite it in place at a fixed length, one small
/// write and data sync each — temp + fsync + rename + directory fsync per checkpoint cost about
/// as much disk time as the 4 MiB they record. A record torn by a power cut reads as none (a
/// restart from zero) or, at worst, as a wrong offset that the SHA-256 check then rejects: the
/// checkpoint saves bytes, it never decides what is installed.
final class CheckpointFile: Sendable {
    private struct Record: Codable {
        var sha256: String
        var size: Int64
        var offset: Int64
    }

    /// Room for any record; shorter ones are padded with spaces (JSON whitespace).
    private static let length = 192
    private let url: URL
    private let sha256: String
    private let size: Int64
    /// Open once the file exists; used by one thread at a time (the syncer's, or the owner's
    /// after `CheckpointSyncer.drain`), the lock only makes that checkable.
    private let fd = Locked<Int32>(-1)

    /// A full download's record, `partial/<id>.json`.
    convenience init(release: ReleaseDocument, directory: URL) {
        self.init(url: directory.appendingPathComponent("\(release.id).json"), sha256: release.sha256, size: release.size)
    }

    /// The record at `url` of the transfer of the file with this SHA-256 and size (a release's
    /// file, or the packed file or patch it is decoded from).
    init(url: URL, sha256: String, size: Int64) {
        self.url = url
        self.sha256 = sha256
        self.size = size
    }

    /// The offset recorded for this file, if any.
    func recordedOffset() -> Int64? {
        // Any failure to read the record means "no checkpoint": resuming from zero costs bytes,
        // never correctness (the SHA-256 decides what is installed).
        guard let data = try? Data(contentsOf: url), let record = try? JSONDecoder().decode(Record.self, from: data),
              record.sha256 == sha256, record.size == size, (0...size).contains(record.offset) else { return nil }
        return record.offset
    }

    /// Records `offset` durably; the bytes it names must already be fsynced.
    func record(_ offset: Int64) throws {
        var bytes = try JSONEncoder().encode(Record(sha256: sha256, size: size, offset: offset))
        bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: Self.length - bytes.count))
        try fd.withLock { fd in
            guard fd >= 0 else {
                try DiskIO.atomicWrite(bytes, to: url)
                fd = open(url.path, O_WRONLY | O_CLOEXEC)
                guard fd >= 0 else { throw ModeldClientError.io("open \(url.path): \(DiskIO.errorText())") }
                return
            }
            let n = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
            guard n == bytes.count else { throw ModeldClientError.io("write \(url.path): \(DiskIO.errorText())") }
            try DiskIO.syncData(fd, path: url.path)
        }
    }

    /// Deletes the record; `durably` when the bytes it names are about to be overwritten, so a
    /// crash cannot bring it back.
    func remove(durably: Bool) throws {
        close()
        guard unlink(url.path) == 0 || errno == ENOENT else { throw ModeldClientError.io("unlink \(url.path): \(DiskIO.errorText())") }
        if durably { try DiskIO.fsyncDirectory(url.deletingLastPathComponent()) }
    }

    func close() {
        fd.withLock { fd in
            if fd >= 0 { DiskIO.closeFile(fd) }
            fd = -1
        }
    }
}

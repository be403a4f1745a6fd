import Crypto
import Foundation

/// Streams a release's file into `partial/<id>.part` and proves it is the signed one (SPEC §13):
/// a fsynced checkpoint every 8 MiB, resume with `Range` + `If-Range: "<sha256>"`, identity
/// encoding, a 200 to a range restarts from zero, abort at size + 1 byte, SHA-256 and size
/// checked at the end. Nothing here touches the installed models.
struct Downloader {
    static let checkpointInterval: Int64 = 8 << 20

    let transport: any HTTPTransport
    let directory: URL

    /// Downloads (or resumes) `release` and returns the verified, fsynced file.
    func fetch(_ release: Release) async throws -> URL {
        do {
            return try await attempt(release)
        } catch PartialFile.Restart.rangeNotSatisfiable {
            // The partial no longer fits the file (416): forget it and start once more from zero.
            try? PartialFile.discard(release, in: directory)
            return try await attempt(release)
        }
    }

    private func attempt(_ release: Release) async throws -> URL {
        let partial = try PartialFile(release: release, directory: directory)
        defer { partial.close() }
        let remaining = release.size - partial.written
        let available = try DiskIO.availableBytes(at: directory)
        let needed = remaining + remaining / 10
        guard available >= needed else { throw ModeldClientError.insufficientStorage(needed: needed, available: available) }

        guard let url = URL(string: release.url) else { throw ModeldClientError.verification("bad url \(release.url)") }
        var request = HTTPRequest(url: url)
        request.headers["Accept-Encoding"] = "identity"
        if partial.written > 0 {
            request.headers["Range"] = "bytes=\(partial.written)-"
            request.headers["If-Range"] = "\"\(release.sha256)\""
        }
        do {
            try await transport.stream(request, into: partial)
            return try partial.finish()
        } catch let error as ModeldClientError {
            if case .verification = error { try? PartialFile.discard(release, in: directory) } else { partial.checkpointQuietly() }
            throw error
        } catch {
            partial.checkpointQuietly()
            throw error
        }
    }
}

/// The on-disk partial download of one release: `<id>.part` and its checkpoint `<id>.json`
/// (the byte count known to be fsynced). Used by one thread at a time: the transport's while the
/// response streams in, then the downloader's.
final class PartialFile: ResponseSink {
    enum Restart: Error { case rangeNotSatisfiable }

    private struct Checkpoint: Codable {
        var sha256: String
        var size: Int64
        var offset: Int64
    }

    private let release: Release
    private let partURL: URL
    private let checkpointURL: URL
    private let fd: Int32
    private var hasher = SHA256()
    private(set) var written: Int64 = 0
    private var lastCheckpoint: Int64 = 0

    static func discard(_ release: Release, in directory: URL) throws {
        for suffix in ["part", "json"] {
            try? FileManager.default.removeItem(at: directory.appendingPathComponent("\(release.id).\(suffix)"))
        }
    }

    /// Opens the partial, keeping only the prefix the checkpoint proves durable (an unsynced
    /// tail may hold garbage after a crash), and re-hashes that prefix.
    init(release: Release, directory: URL) throws {
        self.release = release
        partURL = directory.appendingPathComponent("\(release.id).part")
        checkpointURL = directory.appendingPathComponent("\(release.id).json")
        fd = open(partURL.path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw ModeldClientError.io("open \(partURL.path): \(DiskIO.errorText())") }
        var offset: Int64 = 0
        if let data = try? Data(contentsOf: checkpointURL),
           let checkpoint = try? JSONDecoder().decode(Checkpoint.self, from: data),
           checkpoint.sha256 == release.sha256, checkpoint.size == release.size,
           (0...release.size).contains(checkpoint.offset), checkpoint.offset <= fileSize() {
            offset = checkpoint.offset
        }
        do {
            try truncate(to: offset)
            try rehashPrefix(offset)
        } catch {
            DiskIO.closeFile(fd)
            throw error
        }
        written = offset
        lastCheckpoint = offset
    }

    func close() { DiskIO.closeFile(fd) }

    func receive(_ head: ResponseHead) throws {
        switch head.status {
        case 206 where written > 0:
            let range = head.header("Content-Range") ?? ""
            guard range.hasPrefix("bytes \(written)-"), range.hasSuffix("/\(release.size)") else {
                throw ModeldClientError.network("Content-Range '\(range)' does not continue at byte \(written)")
            }
        case 200:
            if written > 0 { try restart() }  // If-Range did not match or Range was ignored.
        case 416:
            throw Restart.rangeNotSatisfiable
        default:
            throw ModeldClientError.server(status: head.status, code: nil, message: "downloading \(release.url)")
        }
    }

    func receive(_ bytes: UnsafeRawBufferPointer) throws {
        guard written + Int64(bytes.count) <= release.size else {
            throw ModeldClientError.verification("the server sent more than the \(release.size) bytes of release \(release.id)")
        }
        try DiskIO.writeAll(fd, bytes, path: partURL.path)
        hasher.update(bufferPointer: bytes)
        written += Int64(bytes.count)
        if written - lastCheckpoint >= Downloader.checkpointInterval { try checkpoint() }
    }

    /// fsync, then record how many bytes are durable.
    func checkpoint() throws {
        guard fsync(fd) == 0 else { throw ModeldClientError.io("fsync \(partURL.path): \(DiskIO.errorText())") }
        let checkpoint = Checkpoint(sha256: release.sha256, size: release.size, offset: written)
        try DiskIO.atomicWrite(try JSONEncoder().encode(checkpoint), to: checkpointURL)
        lastCheckpoint = written
    }

    /// After a failed transfer: keep what arrived for the next resume.
    func checkpointQuietly() { if written > lastCheckpoint { try? checkpoint() } }

    /// Size and SHA-256 against the release; the verified file is fsynced and its checkpoint removed.
    func finish() throws -> URL {
        guard written == release.size else {
            throw ModeldClientError.network("the transfer ended after \(written) of \(release.size) bytes")
        }
        let digest = Digest.hex(hasher.finalize())
        guard digest == release.sha256 else {
            throw ModeldClientError.verification("SHA-256 of the download is \(digest), the release says \(release.sha256)")
        }
        guard fsync(fd) == 0 else { throw ModeldClientError.io("fsync \(partURL.path): \(DiskIO.errorText())") }
        try? FileManager.default.removeItem(at: checkpointURL)
        return partURL
    }

    private func restart() throws {
        try truncate(to: 0)
        hasher = SHA256()
        written = 0
        lastCheckpoint = 0
        try? FileManager.default.removeItem(at: checkpointURL)
    }

    private func truncate(to offset: Int64) throws {
        guard ftruncate(fd, off_t(offset)) == 0, lseek(fd, off_t(offset), SEEK_SET) == offset else {
            throw ModeldClientError.io("truncate \(partURL.path): \(DiskIO.errorText())")
        }
    }

    private func fileSize() -> Int64 {
        var info = stat()
        return fstat(fd, &info) == 0 ? Int64(info.st_size) : 0
    }

    private func rehashPrefix(_ length: Int64) throws {
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var done: Int64 = 0
        while done < length {
            let want = Int(min(Int64(buffer.count), length - done))
            let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, want, off_t(done)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw ModeldClientError.io("read \(partURL.path): \(DiskIO.errorText())") }
            hasher.update(data: buffer[0..<n])
            done += Int64(n)
        }
    }
}

import BinaryText
import ChunkList
import CryptoPrimitives
import Foundation

/// Streams a release's file into `partial/<id>.part` and proves it is the signed one (SPEC §13):
/// a checkpoint made durable once 64 MiB or 2 s have passed since the last one (while the next
/// ones arrive), or after 2 s of silence (``CheckpointPolicy``), resume with `Range` + `If-Range: "<sha256>"`, identity encoding, a 200 to
/// a range restarts from zero, abort at size + 1 byte, SHA-256 and size checked at the end.
/// Nothing here touches the installed models.
struct Downloader {
    let transport: any HTTPTransport
    let directory: URL
    /// Sees `downloading` as bytes reach the disk, then `verifying`.
    var progress: ProgressBroadcaster?
    /// The release's verified chunk list, if it has one: a resume keeps the bytes on disk past
    /// the checkpoint that match it (SPEC §13.2).
    var chunks: ChunkList?

    /// Downloads (or resumes) `release` and returns the verified, fsynced file and the body
    /// bytes this call received for it.
    func fetch(_ release: ReleaseDocument) async throws -> (file: URL, bytesFetched: Int64) {
        do {
            return try await attempt(release)
        } catch PartialFile.Restart.rangeNotSatisfiable {
            // The partial no longer fits the file (416): forget it and start once more from zero.
            try PartialFile.discard(release, in: directory)
            return try await attempt(release)
        }
    }

    private func attempt(_ release: ReleaseDocument) async throws -> (file: URL, bytesFetched: Int64) {
        let partial = try PartialFile(release: release, directory: directory, progress: progress, chunks: chunks)
        defer { partial.close() }
        let remaining = release.size - partial.written
        let available = try DiskIO.availableBytes(at: directory)
        let needed = remaining + remaining / 10
        guard available >= needed else { throw ModeldClientError.insufficientStorage(needed: needed, available: available) }

        guard let url = URL(string: release.url) else { throw ModeldClientError.verification("bad url \(release.url)") }
        do {
            if partial.received < release.size {
                try await Self.streamRest(of: url, sha256: release.sha256, size: release.size, transport: transport, into: partial)
            }
            return (try partial.finish(), partial.fetched)
        } catch let error as ModeldClientError {
            if case .verification = error { partial.discard() } else { partial.checkpointQuietly() }
            throw error
        } catch {
            partial.checkpointQuietly()
            throw error
        }
    }

    /// Streams the immutable file at `url` (`size` bytes, ETag `"<sha256>"`) into `sink` from
    /// what it has to the end. A transport that buffers what the disk has not taken yet gets
    /// the file one window at a time, so at most a window waits in memory; any other gets it in
    /// one request. The whole file and packed files or patches alike (SPEC §13, §16).
    static func streamRest(of url: URL, sha256: String, size: Int64, transport: any HTTPTransport, into sink: some ResumableSink) async throws {
        repeat {
            let before = sink.received
            try await transport.stream(request(url, sha256: sha256, size: size, from: before, window: transport.bufferWindow), into: sink)
            guard sink.received > before else { throw ModeldClientError.network("\(url.absoluteString) sent no bytes at \(before)") }
        } while transport.bufferWindow != nil && sink.received < size
    }

    /// Identity encoding; from a resume point or for a window, a range that only a file with
    /// this SHA-256 (the ETag) may answer with 206.
    static func request(_ url: URL, sha256: String, size: Int64, from: Int64, window: Int64?) -> HTTPRequest {
        var request = HTTPRequest(url: url)
        request.headers["Accept-Encoding"] = "identity"
        let last = window.map { min(from + $0, size) - 1 }
        if from > 0 || last != nil {
            request.headers["Range"] = "bytes=\(from)-\(last.map(String.init) ?? "")"
            request.headers["If-Range"] = "\"\(sha256)\""
        }
        return request
    }
}

/// A response sink that resumes: `received` is where the next request starts.
protocol ResumableSink: ResponseSink {
    var received: Int64 { get }
}

/// The on-disk partial download of one release: `<id>.part` and its checkpoint `<id>.json`
/// (the byte count known to be fsynced). Used by one thread at a time: the transport's while the
/// response streams in, then the downloader's; its checkpoints are made durable by `syncer`.
final class PartialFile: ResumableSink {
    enum Restart: Error { case rangeNotSatisfiable }

    private let release: ReleaseDocument
    private let partURL: URL
    private let partPath: String
    private let checkpointFile: CheckpointFile
    private let fd: Int32
    private var hasher = StreamHasher()
    private let syncer = CheckpointSyncer()
    /// Bytes in the file; `pending` holds the ones received after them.
    private(set) var written: Int64 = 0
    /// Body bytes received by this transfer (`bytes_fetched`, SPEC §14).
    private(set) var fetched: Int64 = 0
    /// Received bytes gathered into one write and one hash job per MiB (libcurl hands over
    /// 16 KiB at a time).
    private var pending: [UInt8] = []
    private static let pendingLimit = 1 << 20
    /// Bytes received so far (written and pending).
    var received: Int64 { written + Int64(pending.count) }
    /// The offset of the last checkpoint handed to `syncer`, and when.
    private var lastCheckpoint: Int64 = 0
    private var lastCheckpointAt = ContinuousClock.now
    /// When the last body bytes arrived (the stall rule's clock).
    private var lastByteAt = ContinuousClock.now
    private let progress: ProgressBroadcaster?

    static func discard(_ release: ReleaseDocument, in directory: URL) throws {
        for suffix in ["part", "json"] {
            let url = directory.appendingPathComponent("\(release.id).\(suffix)")
            guard try DiskIO.exists(url) else { continue }
            do { try FileManager.default.removeItem(at: url) } catch {
                throw ModeldClientError.io("cannot delete \(url.path): \(error.localizedDescription)")
            }
        }
    }

    /// Opens the partial, keeping the prefix the checkpoint proves durable and the whole chunks
    /// after it that match `chunks` (an unsynced tail may hold garbage after a crash; a process
    /// kill leaves it intact), and re-hashes that prefix.
    init(release: ReleaseDocument, directory: URL, progress: ProgressBroadcaster? = nil, chunks: ChunkList? = nil) throws {
        self.release = release
        self.progress = progress
        partURL = directory.appendingPathComponent("\(release.id).part")
        partPath = partURL.path
        checkpointFile = CheckpointFile(release: release, directory: directory)
        fd = open(partURL.path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw ModeldClientError.io("open \(partURL.path): \(DiskIO.errorText())") }
        var durable: Int64 = 0
        if let recorded = checkpointFile.recordedOffset(), recorded <= fileSize() { durable = recorded }
        var offset = durable
        do {
            if let chunks, chunks.fileSize == release.size { offset = try verifiedEnd(after: durable, chunks) }
            try truncate(to: offset)
            try rehashPrefix(offset)
        } catch {
            DiskIO.closeFile(fd)
            throw error
        }
        written = offset
        lastCheckpoint = durable  // the kept tail is not known to be fsynced: the next checkpoint covers it
        pending.reserveCapacity(Self.pendingLimit)
        progress?.report(.downloading(bytes: offset, total: release.size))
    }

    /// Waits for the checkpoint in flight: the syncer must never fsync a closed (or reused) fd.
    func close() {
        try? syncer.drain()  // a failed last checkpoint leaves the previous one: a resume re-fetches a little more
        DiskIO.closeFile(fd)
        checkpointFile.close()
    }

    /// After a verification failure: deletes the partial, once no checkpoint can reappear.
    func discard() {
        // The verification failure is what the caller reports; a partial that cannot be deleted
        // fails the same SHA-256 check at its resume and is discarded then.
        try? syncer.drain()
        try? Self.discard(release, in: partURL.deletingLastPathComponent())
    }

    func receive(_ head: ResponseHead) throws {
        switch head.status {
        case 206:
            let range = head.header("Content-Range") ?? ""
            guard range.hasPrefix("bytes \(received)-"), range.hasSuffix("/\(release.size)") else {
                throw ModeldClientError.network("Content-Range '\(range)' does not continue at byte \(received)")
            }
        case 200:
            if received > 0 { try restart() }  // If-Range did not match or Range was ignored.
        case 416:
            throw Restart.rangeNotSatisfiable
        default:
            throw ModeldClientError.server(status: head.status, code: nil, message: "downloading \(release.url)")
        }
    }

    func receive(_ bytes: UnsafeRawBufferPointer) throws {
        guard written + Int64(pending.count + bytes.count) <= release.size else {
            throw ModeldClientError.verification("the server sent more than the \(release.size) bytes of release \(release.id)")
        }
        fetched += Int64(bytes.count)
        lastByteAt = .now
        pending.append(contentsOf: bytes)
        if pending.count >= Self.pendingLimit { try flush() }
    }

    /// The stall rule (``CheckpointPolicy/isStalled(undurable:silentFor:)``): what arrived,
    /// pending bytes included, becomes durable once the link has been silent for 2 s.
    func tick() throws {
        guard CheckpointPolicy.isStalled(undurable: received - lastCheckpoint, silentFor: .now - lastByteAt) else { return }
        try checkpointReceived()
    }

    /// Writes the pending bytes, hands them to the hash thread, starts their writeback (so a
    /// checkpoint's fsync finds little left) and checkpoints when ``CheckpointPolicy`` says so.
    private func flush() throws {
        guard !pending.isEmpty else { return }
        try pending.withUnsafeBytes { try DiskIO.writeAll(fd, $0, path: partPath) }
        DiskIO.startWriteback(fd, offset: written, length: Int64(pending.count))
        written += Int64(pending.count)
        hasher.update(pending)
        pending = []
        pending.reserveCapacity(Self.pendingLimit)
        progress?.report(.downloading(bytes: written, total: release.size))
        if CheckpointPolicy.isDue(bytes: written - lastCheckpoint, since: ContinuousClock.now - lastCheckpointAt) { try checkpoint() }
    }

    /// Has the syncer fsync the bytes written so far, then record them as durable (the record
    /// is written only after the fsync that covers them).
    private func checkpoint() throws {
        let (fd, path, offset, checkpointFile) = (fd, partPath, written, checkpointFile)
        try syncer.submit {
            try DiskIO.syncData(fd, path: path)
            try checkpointFile.record(offset)
        }
        lastCheckpoint = written
        lastCheckpointAt = .now
    }

    /// Writes the pending bytes and checkpoints all that arrived.
    private func checkpointReceived() throws {
        try flush()
        if written > lastCheckpoint { try checkpoint() }
    }

    /// After a failed transfer: keep what arrived for the next resume.
    func checkpointQuietly() {
        // The transfer's own error is the one reported; a checkpoint that fails here only means
        // the next resume starts from the one before.
        try? checkpointReceived()
        try? syncer.drain()
    }

    /// Size and SHA-256 against the release; the verified file is fsynced and its checkpoint removed.
    func finish() throws -> URL {
        try flush()
        progress?.report(.verifying)
        try syncer.drain()
        guard written == release.size else {
            throw ModeldClientError.network("the transfer ended after \(written) of \(release.size) bytes")
        }
        let digest = Hex.encode(hasher.finalize())
        guard digest == release.sha256 else {
            throw ModeldClientError.verification("SHA-256 of the download is \(digest), the release says \(release.sha256)")
        }
        try DiskIO.syncFile(fd, path: partPath)
        try? checkpointFile.remove(durably: false)  // the file is verified; a leftover record goes with the partials after the install
        return partURL
    }

    /// Truncates only once no checkpoint of the old bytes can still be recorded or survive a crash.
    private func restart() throws {
        try syncer.drain()
        try checkpointFile.remove(durably: true)
        try truncate(to: 0)
        hasher = StreamHasher()
        written = 0
        pending.removeAll(keepingCapacity: true)
        lastCheckpoint = 0
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

    /// The end of the last of the consecutive chunks after `durable` that are wholly on disk and
    /// match their SHA-256 (`durable` itself when the first does not).
    private func verifiedEnd(after durable: Int64, _ list: ChunkList) throws -> Int64 {
        let onDisk = fileSize()
        var buffer = [UInt8](repeating: 0, count: ContentDefinedChunker.maxSize)
        var end = durable
        for (start, chunk) in zip(list.offsets, list.chunks) where start + Int64(chunk.length) > durable {
            guard start + Int64(chunk.length) <= onDisk else { break }
            let matches = try buffer.withUnsafeMutableBytes { raw in
                let bytes = UnsafeMutableRawBufferPointer(rebasing: raw[0..<chunk.length])
                return try DeltaDownloader.readFully(fd, bytes, at: start, path: partPath)
                    && ChunkDigest(SHA256.hash(data: UnsafeRawBufferPointer(bytes))) == chunk.sha256
            }
            guard matches else { break }
            end = start + Int64(chunk.length)
        }
        return end
    }

    private func rehashPrefix(_ length: Int64) throws {
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var done: Int64 = 0
        while done < length {
            let want = Int(min(Int64(buffer.count), length - done))
            let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, want, off_t(done)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw ModeldClientError.io("read \(partURL.path): \(DiskIO.errorText())") }
            hasher.update(Array(buffer[0..<n]))
            done += Int64(n)
        }
    }
}

import BinaryText
import ChunkList
import CryptoPrimitives
import Foundation

/// Builds a release's file in `partial/<id>.delta` from chunks of cached models plus
/// single-range GETs of the missing ones (SPEC §14), at most `maxInFlight` at a time, each chunk
/// checked against its SHA-256 before it is written, then the whole file against the release.
/// Progress is made durable as ``CheckpointPolicy`` says (`DeltaCheckpoint`), so a crash
/// re-fetches at most one interval plus the chunks in flight. Never touches the installed models.
/// Reports `downloading` as bytes fetched of the bytes the plan must fetch, then `verifying`.
struct DeltaDownloader {
    static let maxInFlight = 4

    /// A cached file and its chunk list.
    struct Source {
        let list: ChunkList
        let path: URL
    }

    let transport: any HTTPTransport
    let directory: URL
    var progress: ProgressBroadcaster?

    func fileURL(_ release: ReleaseDocument) -> URL { directory.appendingPathComponent("\(release.id).delta") }

    /// The verified file and the bytes fetched for it (by this and any earlier, crashed, run).
    func build(_ release: ReleaseDocument, target: ChunkList, listSHA256: String, sources: [Source]) async throws -> (file: URL, bytesFetched: Int64) {
        guard let url = URL(string: release.url) else { throw ModeldClientError.verification("bad url \(release.url)") }
        let file = fileURL(release)
        let checkpoints = DeltaCheckpoint.File(url: directory.appendingPathComponent("\(release.id).delta.json"))
        let resumed = checkpoints.load(release: release, list: listSHA256)
        let output = try BuiltFile(file: file, size: release.size, fresh: resumed == nil)
        defer { output.close() }
        let progress = DeltaProgress(
            output: output, checkpoint: resumed ?? DeltaCheckpoint(release: release, list: listSHA256, chunks: target.chunks.count),
            file: checkpoints, broadcaster: self.progress)
        do {
            let plan = DeltaPlan(target: target, sources: sources.map(\.list), done: progress.done)
            let available = try DiskIO.availableBytes(at: directory)
            if resumed == nil, available < plan.bytesToFetch { throw ModeldClientError.insufficientStorage(needed: plan.bytesToFetch, available: available) }
            progress.startReporting(toFetch: plan.bytesToFetch)
            try copy(plan.copies, target: target, sources: sources, into: output, progress: progress)
            try progress.checkpoint()
            let offsets = target.offsets
            try await withThrowingTaskGroup(of: Void.self) { group in
                var next = plan.fetches.startIndex
                func start() {
                    let fetch = plan.fetches[next]
                    next += 1
                    group.addTask {
                        let sink = RangeSink(fetch: fetch, release: release, target: target, offsets: offsets, output: output, progress: progress)
                        try await transport.stream(sink.request(url), into: sink)
                        try sink.finish()
                    }
                }
                while next < plan.fetches.endIndex && next - plan.fetches.startIndex < Self.maxInFlight { start() }
                while try await group.next() != nil {
                    if next < plan.fetches.endIndex { start() }
                }
            }
            try progress.checkpoint()
            self.progress?.report(.verifying)
            try output.verify(sha256: release.sha256)
            checkpoints.remove()
            return (file, progress.fetched)
        } catch var fallback as TransferFallback {
            fallback.bytesFetched = progress.fetched
            checkpoints.remove()
            try? FileManager.default.removeItem(at: file)
            throw fallback
        } catch {
            try? progress.checkpoint()   // keep what arrived for the next run
            throw error
        }
    }

    /// Local chunks, each re-hashed as read: a damaged cached file must not leak into the new one.
    private func copy(_ copies: [DeltaPlan.Copy], target: ChunkList, sources: [Source], into output: BuiltFile, progress: DeltaProgress) throws {
        var descriptors: [Int: Int32] = [:]
        defer { for fd in descriptors.values { DiskIO.closeFile(fd) } }
        var buffer = [UInt8](repeating: 0, count: ContentDefinedChunker.maxSize)
        for c in copies {
            let fd: Int32
            if let open = descriptors[c.source] { fd = open } else {
                fd = open(sources[c.source].path.path, O_RDONLY | O_CLOEXEC)
                guard fd >= 0 else { throw TransferFallback(reason: "cannot open cached model \(sources[c.source].path.path): \(DiskIO.errorText())") }
                descriptors[c.source] = fd
            }
            let valid = try buffer.withUnsafeMutableBytes { raw -> Bool in
                let chunk = UnsafeMutableRawBufferPointer(rebasing: raw[0..<c.length])
                guard try Self.readFully(fd, chunk, at: c.sourceOffset, path: sources[c.source].path.path) else { return false }
                guard ChunkDigest(SHA256.hash(data: UnsafeRawBufferPointer(chunk))) == target.chunks[c.chunk].sha256 else { return false }
                try output.write(UnsafeRawBufferPointer(chunk), at: c.targetOffset)
                return true
            }
            guard valid else { throw TransferFallback(reason: "cached chunk at \(c.sourceOffset) of \(sources[c.source].path.lastPathComponent) does not match its list") }
            try progress.chunkDone(c.chunk, length: 0)
        }
    }
}

extension DeltaDownloader {
    /// Fills `buffer` from `offset`; false when the file ends first.
    static func readFully(_ fd: Int32, _ buffer: UnsafeMutableRawBufferPointer, at offset: Int64, path: String) throws -> Bool {
        var done = 0
        while done < buffer.count {
            let n = pread(fd, buffer.baseAddress! + done, buffer.count - done, off_t(offset + Int64(done)))
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw ModeldClientError.io("read \(path): \(DiskIO.errorText())") }
            if n == 0 { return false }
            done += n
        }
        return true
    }
}

/// Which chunks are in place and how much was fetched, shared by the concurrent range sinks;
/// made durable (data fsynced first, then the record) when ``CheckpointPolicy`` says so (64 MiB
/// fetched, 2 s with new chunks, or 2 s of silence after them, as a full download).
/// Reports `downloading(bytes: fetched, total: fetched before + to fetch)` to `broadcaster`,
/// under the lock (so in order) and at most once per `reportInterval`, as a full download does.
final class DeltaProgress: Sendable {
    static let reportInterval: Int64 = 1 << 20

    private struct State {
        var checkpoint: DeltaCheckpoint
        var sinceCheckpoint: Int64 = 0
        var lastCheckpointAt = ContinuousClock.now
        /// When the last bytes of any range arrived (the stall rule's clock).
        var lastByteAt = ContinuousClock.now
        /// Bytes fetched when the plan's fetches end (by earlier runs too); nil until planned.
        var total: Int64?
        var reported: Int64 = 0
    }

    private let output: BuiltFile
    private let file: DeltaCheckpoint.File
    private let broadcaster: ProgressBroadcaster?
    private let state: Locked<State>

    init(output: BuiltFile, checkpoint: DeltaCheckpoint, file: DeltaCheckpoint.File, broadcaster: ProgressBroadcaster?) {
        self.output = output
        self.file = file
        self.broadcaster = broadcaster
        state = Locked(State(checkpoint: checkpoint))
    }

    var done: Set<Int> { state.withLock { $0.checkpoint.doneChunks } }
    var fetched: Int64 { state.withLock { $0.checkpoint.fetched } }

    /// The plan is made: `toFetch` more bytes to go (a resumed build counts what it had).
    func startReporting(toFetch: Int64) {
        state.withLock { s in
            s.total = s.checkpoint.fetched + toFetch
            report(&s)
        }
    }

    func received(_ count: Int) {
        state.withLock { s in
            s.checkpoint.fetched += Int64(count)
            s.lastByteAt = .now
            if s.checkpoint.fetched - s.reported >= Self.reportInterval || s.checkpoint.fetched == s.total { report(&s) }
        }
    }

    private func report(_ s: inout State) {
        guard let total = s.total else { return }
        s.reported = s.checkpoint.fetched
        broadcaster?.report(.downloading(bytes: s.checkpoint.fetched, total: total))
    }

    /// Chunk `index` is written (`length` of it fetched, 0 when copied).
    func chunkDone(_ index: Int, length: Int) throws {
        try state.withLock { s in
            s.checkpoint.markDone(index)
            s.sinceCheckpoint += Int64(length)
            if CheckpointPolicy.isDue(bytes: s.sinceCheckpoint, since: ContinuousClock.now - s.lastCheckpointAt) { try write(&s) }
        }
    }

    func checkpoint() throws { try state.withLock { try write(&$0) } }

    /// The stall rule (``CheckpointPolicy/isStalled(undurable:silentFor:)``): the chunks in
    /// place become durable once no range has received a byte for 2 s (a chunk not all in is
    /// fetched again).
    func tick() throws {
        try state.withLock { s in
            if CheckpointPolicy.isStalled(undurable: s.sinceCheckpoint, silentFor: .now - s.lastByteAt) { try write(&s) }
        }
    }

    private func write(_ s: inout State) throws {
        try output.sync()
        try file.save(s.checkpoint)
        s.sinceCheckpoint = 0
        s.lastCheckpointAt = .now
    }
}

/// One single-range GET of whole target chunks: `206` with the exact `Content-Range` or a
/// fallback; every chunk hashed and written as soon as its last byte arrives.
final class RangeSink: ResponseSink {
    private let fetch: DeltaPlan.Fetch
    private let release: ReleaseDocument
    private let target: ChunkList
    private let offsets: [Int64]
    private let output: BuiltFile
    private let progress: DeltaProgress
    private var chunk: Int
    private var buffer: [UInt8] = []
    private var received: Int64 = 0

    init(fetch: DeltaPlan.Fetch, release: ReleaseDocument, target: ChunkList, offsets: [Int64], output: BuiltFile, progress: DeltaProgress) {
        self.fetch = fetch
        self.release = release
        self.target = target
        self.offsets = offsets
        self.output = output
        self.progress = progress
        chunk = fetch.chunks.lowerBound
        buffer.reserveCapacity(ContentDefinedChunker.maxSize)
    }

    private var rangeText: String { "\(fetch.offset)-\(fetch.offset + fetch.length - 1)" }

    /// `If-Range` with the file's strong ETag: a changed object answers 200, which falls back.
    func request(_ url: URL) -> HTTPRequest {
        var request = HTTPRequest(url: url)
        request.headers["Accept-Encoding"] = "identity"
        request.headers["Range"] = "bytes=\(rangeText)"
        request.headers["If-Range"] = "\"\(release.sha256)\""
        return request
    }

    func receive(_ head: ResponseHead) throws {
        switch head.status {
        case 206:
            let range = head.header("Content-Range") ?? ""
            guard range == "bytes \(rangeText)/\(release.size)" else {
                throw TransferFallback(reason: "Content-Range '\(range)' for bytes \(rangeText)/\(release.size)")
            }
        case 200: throw TransferFallback(reason: "a 200 answered the range \(rangeText)")
        case 412, 416: throw TransferFallback(reason: "\(head.status) answered the range \(rangeText)")
        default: throw ModeldClientError.server(status: head.status, code: nil, message: "fetching bytes \(rangeText) of \(release.url)")
        }
    }

    func receive(_ bytes: UnsafeRawBufferPointer) throws {
        received += Int64(bytes.count)
        progress.received(bytes.count)
        guard received <= fetch.length else { throw TransferFallback(reason: "more than \(fetch.length) bytes for the range \(rangeText)") }
        var rest = bytes
        while !rest.isEmpty {
            let want = target.chunks[chunk].length - buffer.count
            let take = min(want, rest.count)
            buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: rest[0..<take]))
            rest = UnsafeRawBufferPointer(rebasing: rest[take...])
            if buffer.count == target.chunks[chunk].length { try complete() }
        }
    }

    func tick() throws { try progress.tick() }

    private func complete() throws {
        let expected = target.chunks[chunk]
        try buffer.withUnsafeBytes { raw in
            guard ChunkDigest(SHA256.hash(data: raw)) == expected.sha256 else {
                throw TransferFallback(reason: "chunk \(chunk) (bytes \(offsets[chunk])+\(expected.length)) does not match its SHA-256")
            }
            try output.write(raw, at: offsets[chunk])
        }
        try progress.chunkDone(chunk, length: expected.length)
        chunk += 1
        buffer.removeAll(keepingCapacity: true)
    }

    /// After the transfer: a short body is a network error (the next run resumes).
    func finish() throws {
        guard received == fetch.length else {
            throw ModeldClientError.network("the range \(rangeText) ended after \(received) of \(fetch.length) bytes")
        }
    }
}

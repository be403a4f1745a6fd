import BinaryText
import Foundation
import TensorPack
import TensorPackFiles

/// Builds a release's file in `partial/<id>.decoded` from its packed file or from a patch
/// against a model this device holds (SPEC §16), decoding block by block as the bytes arrive:
/// memory holds the block index, one coded block and its decoding (and the base's block), never
/// the file. Every block is checked against its SHA-256 before it is written, then the whole
/// file's size and SHA-256 against the release. Progress is made durable as
/// ``CheckpointPolicy`` says (a stall included), at block boundaries only (`<id>.decoded.json` records the coded
/// bytes consumed, `<id>.decoded.head` keeps the header and index), so a crash resumes with a
/// range request from the first block not on disk. Damaged, missing or mismatched coded bytes
/// throw ``TransferFallback``; network and server errors keep the progress for the next run.
struct CodedDownloader {
    /// The packed file or patch to fetch, as the signed answer names it.
    struct Source {
        let url: String
        let sha256: String
        let size: Int64
        /// A patch's base (nil for a packed file).
        let base: InstalledModel?
    }

    let transport: any HTTPTransport
    let directory: URL
    var progress: ProgressBroadcaster?

    /// The verified file and the body bytes this run fetched for it.
    func build(_ release: ReleaseDocument, from source: Source) async throws -> (file: URL, bytesFetched: Int64) {
        guard let url = URL(string: source.url) else { throw TransferFallback(reason: "bad url \(source.url)") }
        let file = directory.appendingPathComponent("\(release.id).decoded")
        let sink = try DecodingSink(release: release, source: source, file: file, progress: progress)
        defer { sink.close() }
        do {
            let remaining = release.size - sink.decodedBytes
            let available = try DiskIO.availableBytes(at: directory)
            guard available >= remaining + remaining / 10 else {
                throw ModeldClientError.insufficientStorage(needed: remaining + remaining / 10, available: available)
            }
            if sink.received < source.size {
                try await Downloader.streamRest(of: url, sha256: source.sha256, size: source.size, transport: transport, into: sink)
            }
            try sink.finish()
            return (file, sink.fetched)
        } catch var fallback as TransferFallback {
            fallback.bytesFetched = sink.fetched
            sink.discard()
            throw fallback
        } catch {
            sink.checkpointQuietly()
            throw error
        }
    }
}

/// Receives a packed file or patch, decodes each block as its last byte arrives and writes it
/// at its place in the output. Used by one thread at a time, as ``PartialFile`` is.
final class DecodingSink: ResumableSink {
    private let release: ReleaseDocument
    private let source: CodedDownloader.Source
    private let output: BuiltFile
    private let checkpointFile: CheckpointFile
    private let headURL: URL
    private let syncer = CheckpointSyncer()
    private let broadcaster: ProgressBroadcaster?
    private var decoder: PackStreamDecoder
    private var headerKept: Bool
    /// Coded bytes in hand, from the start of the coded file: where the next request starts.
    private(set) var received: Int64
    /// Body bytes this run received (`bytes_fetched`).
    private(set) var fetched: Int64 = 0
    /// The coded offset of the last checkpoint handed to `syncer`, and when.
    private var lastCheckpoint: Int64
    private var lastCheckpointAt = ContinuousClock.now
    /// When the last coded bytes arrived (the stall rule's clock).
    private var lastByteAt = ContinuousClock.now
    private var reported: Int64 = 0

    /// Resumes from the recorded block boundary when the record and the kept header are this
    /// very transfer's; otherwise starts afresh (the stale record deleted first, durably, so it
    /// can never vouch for the new bytes).
    init(release: ReleaseDocument, source: CodedDownloader.Source, file: URL, progress: ProgressBroadcaster?) throws {
        self.release = release
        self.source = source
        broadcaster = progress
        checkpointFile = CheckpointFile(url: file.appendingPathExtension("json"), sha256: source.sha256, size: source.size)
        headURL = file.appendingPathExtension("head")
        let base: FileBase?
        do throws(PackFileError) { base = try source.base.map { model throws(PackFileError) in try FileBase(path: model.path.path) } } catch {
            throw TransferFallback(reason: "the patch's base: \(error)")
        }
        if case let (header, block)? = Self.resumePoint(checkpointFile, headURL, release: release, source: source) {
            do { decoder = try PackStreamDecoder(resuming: header, at: block, base: base) } catch {
                throw TransferFallback(reason: "\(source.url): \(error)")
            }
            received = header.offsets[block]
            headerKept = true
            output = try BuiltFile(file: file, size: release.size, fresh: false)
        } else {
            try checkpointFile.remove(durably: true)
            try? FileManager.default.removeItem(at: headURL)  // without a record it vouches for nothing
            decoder = PackStreamDecoder(base: base)
            received = 0
            headerKept = false
            output = try BuiltFile(file: file, size: release.size, fresh: true)
        }
        lastCheckpoint = received
        broadcaster?.report(.downloading(bytes: received, total: source.size))
    }

    /// Output bytes already decoded and on disk.
    var decodedBytes: Int64 { min(Int64(decoder.blockIndex) * Int64(PackHeader.blockSize), release.size) }

    private static func resumePoint(_ checkpoint: CheckpointFile, _ headURL: URL, release: ReleaseDocument,
                                    source: CodedDownloader.Source) -> (PackHeader, Int)? {
        guard let offset = checkpoint.recordedOffset(), let bytes = try? Data(contentsOf: headURL),
              let header = try? PackHeader(decoding: Array(bytes)), (try? check(header, release: release, source: source)) != nil,
              let block = header.offsets.firstIndex(of: offset) else { return nil }
        return (header, block)
    }

    /// The header must describe exactly the release's file, from this coded file and base.
    private static func check(_ header: PackHeader, release: ReleaseDocument, source: CodedDownloader.Source) throws(TransferFallback) {
        let kind: PackHeader.Kind = source.base == nil ? .pack : .patch
        guard header.kind == kind, header.fileSize == source.size, header.outputSize == release.size,
              Hex.encode(header.outputSHA256) == release.sha256 else {
            throw TransferFallback(reason: "\(source.url) is not the \(kind == .pack ? "packed file" : "patch") of release \(release.id)")
        }
        if let base = source.base, Hex.encode(header.baseSHA256) != base.sha256 {
            throw TransferFallback(reason: "\(source.url) patches another file than model \(base.id)")
        }
    }

    func receive(_ head: ResponseHead) throws {
        switch head.status {
        case 206:
            let range = head.header("Content-Range") ?? ""
            guard range.hasPrefix("bytes \(received)-"), range.hasSuffix("/\(source.size)") else {
                throw TransferFallback(reason: "Content-Range '\(range)' does not continue \(source.url) at byte \(received)")
            }
        case 200 where received == 0: break
        case 200: throw TransferFallback(reason: "a 200 answered the range from byte \(received) of \(source.url)")
        case 408, 429: throw ModeldClientError.server(status: head.status, code: nil, message: "downloading \(source.url)")
        // Gone (404), refused (403: a bucket's answer for a missing key) or unrangeable: the
        // full file is the way left.
        case 400..<500: throw TransferFallback(reason: "\(head.status) for \(source.url)")
        default: throw ModeldClientError.server(status: head.status, code: nil, message: "downloading \(source.url)")
        }
    }

    func receive(_ bytes: UnsafeRawBufferPointer) throws {
        guard received + Int64(bytes.count) <= source.size else {
            throw TransferFallback(reason: "the server sent more than the \(source.size) bytes of \(source.url)")
        }
        received += Int64(bytes.count)
        fetched += Int64(bytes.count)
        lastByteAt = .now
        decoder.append(bytes)
        try drain()
        if received - reported >= 1 << 20 || received == source.size {
            reported = received
            broadcaster?.report(.downloading(bytes: received, total: source.size))
        }
    }

    /// Writes every block whose bytes are all in, each checked by the decoder first.
    private func drain() throws {
        while true {
            let block: [UInt8]?
            do { block = try decoder.nextBlock() } catch { throw TransferFallback(reason: "\(source.url): \(error)") }
            guard let header = decoder.header else { return }
            if !headerKept {
                try Self.check(header, release: release, source: source)
                try DiskIO.atomicWrite(Data(header.encoded()), to: headURL)
                headerKept = true
            }
            guard let block else { return }
            let index = decoder.blockIndex - 1
            try block.withUnsafeBytes { try output.write($0, at: Int64(index) * Int64(PackHeader.blockSize)) }
            let done = header.offsets[decoder.blockIndex]
            if CheckpointPolicy.isDue(bytes: done - lastCheckpoint, since: ContinuousClock.now - lastCheckpointAt) { try checkpoint(at: done) }
        }
    }

    /// The coded offset the blocks on disk end at (nil before the header is kept).
    private var decodedEnd: Int64? {
        guard let header = decoder.header, headerKept else { return nil }
        return header.offsets[decoder.blockIndex]
    }

    /// The stall rule (``CheckpointPolicy/isStalled(undurable:silentFor:)``): the blocks
    /// written become durable once the link has been silent for 2 s. A block's bytes that are
    /// not all in are fetched again (a checkpoint names block boundaries only).
    func tick() throws {
        guard let end = decodedEnd, CheckpointPolicy.isStalled(undurable: end - lastCheckpoint, silentFor: .now - lastByteAt) else { return }
        try checkpoint(at: end)
    }

    /// Has the syncer fsync the blocks written so far, then record the coded offset they end at.
    private func checkpoint(at offset: Int64) throws {
        let (output, checkpointFile) = (output, checkpointFile)
        try syncer.submit {
            try output.sync()
            try checkpointFile.record(offset)
        }
        lastCheckpoint = offset
        lastCheckpointAt = .now
    }

    /// After the coded file arrived: every block decoded, then the whole file's size (the
    /// preallocated one) and SHA-256 against the release's.
    func finish() throws {
        guard received == source.size else {
            throw ModeldClientError.network("the transfer of \(source.url) ended after \(received) of \(source.size) bytes")
        }
        do { try decoder.finish() } catch { throw TransferFallback(reason: "\(source.url): \(error)") }
        broadcaster?.report(.verifying)
        try syncer.drain()
        try output.verify(sha256: release.sha256)
        try? checkpointFile.remove(durably: false)  // the file is verified; leftovers go with the partials after the install
        try? FileManager.default.removeItem(at: headURL)
    }

    /// After a failed transfer: keep the blocks written for the next resume.
    func checkpointQuietly() {
        // The transfer's own error is the one reported; a checkpoint that fails here only means
        // the next resume starts from the one before.
        if let end = decodedEnd, end > lastCheckpoint { try? checkpoint(at: end) }
        try? syncer.drain()
    }

    /// After a fallback: deletes the output and its records, once no checkpoint can reappear.
    func discard() {
        try? syncer.drain()
        try? checkpointFile.remove(durably: false)  // the files are deleted next: a record that reappears vouches for none
        for url in [URL(fileURLWithPath: output.path), headURL] { try? FileManager.default.removeItem(at: url) }
    }

    /// Waits for the checkpoint in flight: the syncer must never fsync a closed file.
    func close() {
        try? syncer.drain()
        output.close()
        checkpointFile.close()
    }
}

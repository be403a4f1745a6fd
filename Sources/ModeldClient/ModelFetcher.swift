import ChunkList
import ContentDigest
import Foundation

/// Gets a release's verified file into `partial/` (SPEC §13, §14, §16) the cheapest way
/// (``TransferChoice``): a patch from a model this device holds, a delta when the release has a
/// chunk list and a cached model has one too and enough is reusable, the packed file, or the
/// resumable full download — and after any failure of the first three, once, the full file.
/// Also fetches and verifies the release's chunk list, which the install keeps for the next
/// update.
struct ModelFetcher {
    struct Fetched {
        let file: URL
        /// The verified `.chunks` bytes to keep with the installed model (nil: none published,
        /// or it could not be fetched).
        let chunkList: [UInt8]?
        /// Every body byte received for this release: chunk list, ranges, coded file, full download.
        let bytesFetched: Int64
        let method: FetchMethod
    }

    /// A delta must reuse at least this share of the file: below it the ranges save little and
    /// cost requests (a fine-tune that moved every weight reuses nothing at all).
    static let minimumReuse = 0.10

    /// Chunk lists, ranges and coded files (foreground, under the download conditions).
    let transport: any HTTPTransport
    /// The full download when the app has a background session (it takes whole files only, SPEC §13.2).
    var background: (session: any BackgroundSession, channel: String)?
    let directory: URL
    /// Sees `downloading` and `verifying` of the delta build, the decoding or the full download.
    var progress: ProgressBroadcaster?

    /// Present once a cheaper way failed for the release: it lives in partial/ until the release
    /// is installed, so the fallback happens once even across restarts.
    private func fullOnlyMarker(_ release: ReleaseDocument) -> URL { directory.appendingPathComponent("\(release.id).full-only") }

    /// - Parameters:
    ///   - sources: the cached models' chunk lists (a delta's sources).
    ///   - models: the models this device holds, active first (a patch's possible bases).
    func fetch(_ release: ReleaseDocument, sources: [DeltaDownloader.Source], models: [InstalledModel]) async throws -> Fetched {
        var fetched: Int64 = 0
        var listBytes: [UInt8]?
        var target: ChunkList?
        if let reference = release.chunks {
            do {
                (listBytes, target) = try await chunkList(reference)
                fetched += reference.size
            } catch let fallback as TransferFallback {
                fetched += fallback.bytesFetched
            }
        }
        if !FileManager.default.fileExists(atPath: fullOnlyMarker(release).path) {
            var deltaBytes: Int64?
            if let target, !sources.isEmpty {
                let plan = DeltaPlan(target: target, sources: sources.map(\.list))
                if Double(plan.bytesReused) >= Self.minimumReuse * Double(target.fileSize) { deltaBytes = plan.bytesToFetch }
            }
            let choice = TransferChoice.cheapest(for: release, models: models, deltaBytes: deltaBytes)
            do {
                if let built = try await build(release, choice, target: target, sources: sources) {
                    return Fetched(file: built.file, chunkList: listBytes, bytesFetched: fetched + built.bytesFetched, method: choice.method)
                }
            } catch let fallback as TransferFallback {
                try? DiskIO.atomicWrite(Data(fallback.reason.utf8), to: fullOnlyMarker(release))
                fetched += fallback.bytesFetched
            }
        }
        if let background {
            let full = try await background.session.book.fetch(release, channel: background.channel, session: background.session, progress: progress)
            return Fetched(file: full.file, chunkList: listBytes, bytesFetched: fetched + full.bytesFetched, method: .full)
        }
        let full = try await Downloader(transport: transport, directory: directory, progress: progress, chunks: target).fetch(release)
        return Fetched(file: full.file, chunkList: listBytes, bytesFetched: fetched + full.bytesFetched, method: .full)
    }

    /// The file built the way `choice` says; nil for the full download, which the caller makes.
    private func build(_ release: ReleaseDocument, _ choice: TransferChoice, target: ChunkList?,
                       sources: [DeltaDownloader.Source]) async throws -> (file: URL, bytesFetched: Int64)? {
        let coded = CodedDownloader(transport: transport, directory: directory, progress: progress)
        switch choice {
        case .full:
            return nil
        case .delta:
            // Chosen only with a verified list (deltaBytes needs one).
            guard let target, let reference = release.chunks else { return nil }
            return try await DeltaDownloader(transport: transport, directory: directory, progress: progress)
                .build(release, target: target, listSHA256: reference.sha256, sources: sources)
        case .packed(let packed):
            return try await coded.build(release, from: .init(url: packed.url, sha256: packed.sha256, size: packed.size, base: nil))
        case .patch(let patch, let base):
            return try await coded.build(release, from: .init(url: patch.url, sha256: patch.sha256, size: patch.size, base: base))
        }
    }

    /// The release's chunk list, checked against the size and SHA-256 its signed document gives.
    private func chunkList(_ reference: ChunkListReference) async throws -> ([UInt8], ChunkList) {
        guard let url = URL(string: reference.url) else { throw TransferFallback(reason: "bad chunks url \(reference.url)") }
        var request = HTTPRequest(url: url)
        request.headers["Accept-Encoding"] = "identity"
        let answer: HTTPAnswer
        do { answer = try await transport.send(request, limit: Int(min(reference.size, 64 << 20)) + 1) } catch let error as ModeldClientError {
            if case .network = error { throw error }
            throw TransferFallback(reason: "fetching the chunk list: \(error)")
        }
        let body = answer.body
        guard answer.status == 200, body.count == reference.size, SHA256Hex.of(body) == reference.sha256 else {
            throw TransferFallback(reason: "the chunk list at \(reference.url) does not match its size and SHA-256", bytesFetched: Int64(body.count))
        }
        do { return (body, try ChunkList(decoding: body)) } catch {
            throw TransferFallback(reason: "the chunk list at \(reference.url): \(error)", bytesFetched: Int64(body.count))
        }
    }
}

extension CacheStore {
    static let chunkListName = "model.chunks"

    /// The chunk lists kept with installed models `ids` (in that order of preference), with
    /// their files: the sources of a delta update. A model installed without one is skipped.
    func deltaSources(_ ids: [String]) -> [DeltaDownloader.Source] {
        ids.compactMap { id in
            guard let model = installed(id),
                  let data = try? Data(contentsOf: model.path.deletingLastPathComponent().appendingPathComponent(Self.chunkListName)),
                  let list = try? ChunkList(decoding: Array(data)) else { return nil }
            return DeltaDownloader.Source(list: list, path: model.path)
        }
    }

    /// Keeps a verified chunk list in a staging directory, next to its model.
    func keepChunkList(_ bytes: [UInt8], in staging: URL) throws {
        try DiskIO.atomicWrite(Data(bytes), to: staging.appendingPathComponent(Self.chunkListName))
    }
}

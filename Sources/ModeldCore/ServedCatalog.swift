import BinaryText
import HTTPServer
import HTTPWire
import ModelCatalog
import ModeldSigning
import Synchronization

/// Everything a request needs from one catalog version: the selection snapshot (releases
/// indexed by channel), and per possible answer and per servable file a cell that prepares its
/// body (gzip, strong ETags, with signing its signature, SPEC §12) or opens its descriptor on
/// first use. A reload builds only the cells (SPEC §17.1: ≤ 100 ms at 10,000 releases): a cell
/// whose release did not change is taken over from the previous version with what it prepared
/// (bodies, open files), so neither the work nor the descriptors grow with the catalog per
/// change, only with the answers and files actually asked for.
final class ServedCatalog: Sendable {
    /// A /latest body in both encodings with their own strong ETags (SPEC §4.1: the gzip body
    /// has a different one), the tags also parsed for If-None-Match. Depends on the bytes only.
    final class PreparedBody: Sendable {
        let identity: [UInt8]
        let identityETag: String
        let gzip: [UInt8]
        let gzipETag: String
        let identityTag: EntityTag
        let gzipTag: EntityTag

        init(_ body: [UInt8]) {
            identity = body
            gzip = Gzip.compress(body)
            identityETag = GeneratedBodyETag.of(body)
            gzipETag = GeneratedBodyETag.of(gzip)
            identityTag = EntityTag.parse(identityETag)!
            gzipTag = EntityTag.parse(gzipETag)!
        }
    }

    struct LatestBody: Sendable {
        let prepared: PreparedBody
        /// Over the identity body, also sent with the gzip body and with 304s.
        let stamp: SignedStamp?

        var identity: [UInt8] { prepared.identity }
        var identityETag: String { prepared.identityETag }
        var gzip: [UInt8] { prepared.gzip }
        var gzipETag: String { prepared.gzipETag }
    }

    /// One possible answer (a release's own file or one live variant), prepared on first use.
    /// Shared by every version in which the release is unchanged (and the base URL the same).
    final class AnswerCell: Sendable {
        let release: Release
        let variant: Int?
        let publicBaseURL: String
        private let body = OnceReference<PreparedBody>()

        init(release: Release, variant: Int?, publicBaseURL: String) {
            self.release = release
            self.variant = variant
            self.publicBaseURL = publicBaseURL
        }

        var prepared: PreparedBody {
            if let b = body.load() { return b }
            let document = release.documentJSON(publicBaseURL: publicBaseURL, variant: variant.map { release.variants[$0] })
            return body.storeIfNil(PreparedBody(document))
        }
    }

    /// The signature of one answer at this version (the signature names the catalog version,
    /// so it is never taken over): made on first use, or afresh by `resigned`.
    final class StampCell: Sendable {
        final class Box: Sendable {
            let stamp: SignedStamp
            init(_ stamp: SignedStamp) { self.stamp = stamp }
        }
        private let box = OnceReference<Box>()

        func stamp(_ identity: [UInt8], _ signing: Signing, catalog: Int64) -> SignedStamp {
            if let b = box.load() { return b.stamp }
            return box.storeIfNil(Box(signing.stamp(identity, catalog: catalog))).stamp
        }
    }

    struct Answerable: Sendable {
        let cell: AnswerCell
        let stamp: StampCell?
    }

    /// A model file's descriptor, opened on the first request for it and kept while the file is
    /// in the catalog (files never change under their name: a version that still names the file
    /// with the same digest takes the cell over), and its representation, built on first use
    /// too (a reload of 10,000 releases does not format 30,000 sets of headers). Not opened:
    /// nothing kept, the next request tries again (a file not yet replicated is simply not served).
    final class FileCell: Sendable {
        final class Headers: Sendable {
            let representation: Representation
            init(_ representation: Representation) { self.representation = representation }
        }
        /// The models directory and the file's name, joined on first open: a reload of 10,000
        /// releases keeps no 30,000 path strings (the name is the files table's key, shared).
        private let directory: String
        private let name: String
        let sha256: String
        private let size: Int64
        private let lastModified: Int64
        private let contentType: String
        private let file = OnceReference<OpenFile>()
        private let headers = OnceReference<Headers>()

        init(directory: String, name: String, sha256: String, size: Int64, publishedAt: Timestamp, contentType: String) {
            self.directory = directory
            self.name = name
            self.sha256 = sha256
            self.size = size
            lastModified = publishedAt.millisecondsSinceEpoch / 1000
            self.contentType = contentType
        }

        var open: OpenFile? {
            if let f = file.load() { return f }
            guard let f = OpenFile.open(path: directory + "/" + name) else { return nil }
            return file.storeIfNil(f)
        }

        /// Model files never change: a year of immutable caching, the digest as ETag and Repr-Digest.
        var representation: Representation {
            if let h = headers.load() { return h.representation }
            return headers.storeIfNil(Headers(Representation(
                size: size, etag: "\"\(sha256)\"", lastModified: lastModified, contentType: contentType,
                headers: [
                    ("Cache-Control", "public, max-age=31536000, immutable"),
                    ("Repr-Digest", "sha-256=:\(Base64.encode(Hex.decode(sha256) ?? [])):"),
                ]))).representation
        }
    }

    struct ModelFile: Sendable {
        let release: Release
        let cell: FileCell
        var representation: Representation { cell.representation }
    }

    let snapshot: CatalogSnapshot
    private let signing: Signing?
    private let answers: [CatalogSnapshot.DocumentKey: Answerable]
    let details: LatestBody                     // /latest_model_details.json without sdk
    let files: [String: ModelFile]              // "<id>.<ext>" → file

    var catalogVersion: Int64 { snapshot.catalog.catalogVersion }

    /// URLs use the catalog's base (SPEC §9.1), so every answer equals what the derived file says.
    /// `previous`: the version this one replaces, whose unchanged cells it takes over.
    init(catalog: Catalog, store: CatalogStore, signing: Signing? = nil, previous: ServedCatalog? = nil) {
        let base = store.baseURL(of: catalog)
        snapshot = CatalogSnapshot(catalog: catalog, publicBaseURL: base)
        self.signing = signing
        var answers: [CatalogSnapshot.DocumentKey: Answerable] = [:]
        answers.reserveCapacity(previous?.answers.count ?? catalog.releases.count)
        // The previous files table, patched: only the files of releases that changed, came or
        // went move (a copy of the table costs far less than 30,000 insertions at 10,000 releases).
        var files = previous?.files ?? [:]
        let reusable = previous?.snapshot.publicBaseURL == base ? previous : nil
        // A catalog has a handful of content types: each is checked once per version.
        var servedTypes: [String: String] = [:]
        func servedType(_ release: Release) -> String {
            if let known = servedTypes[release.contentType] { return known }
            let served = release.servedContentType
            servedTypes[release.contentType] = served
            return served
        }
        func remove(_ release: Release) -> [String: ModelFile] {
            var removed: [String: ModelFile] = [:]
            Self.forEachFile(of: release) { name, _, _, _, _ in removed[name] = files.removeValue(forKey: name) }
            return removed
        }
        // Both versions list releases by ascending seq: the previous one is walked alongside.
        let before = previous?.snapshot.catalog.releases ?? []
        var j = before.startIndex
        for release in catalog.releases {
            while j < before.endIndex, before[j].seq < release.seq {
                _ = remove(before[j])   // not in this version (a catalog restored from elsewhere)
                j += 1
            }
            // One comparison per release (mostly the same box: a reload takes unchanged entries
            // over): an unchanged one keeps its answer cells and file entries as they were.
            var counterpart: Release?
            if j < before.endIndex, before[j].seq == release.seq {
                counterpart = before[j]
                j += 1
            }
            let unchanged = counterpart == release
            if release.state == .active {
                func answer(_ variant: Int?) {
                    let key = CatalogSnapshot.DocumentKey(seq: release.seq, variant: variant)
                    let kept = unchanged ? reusable?.answers[key]?.cell : nil
                    answers[key] = Answerable(cell: kept ?? AnswerCell(release: release, variant: variant, publicBaseURL: base),
                                              stamp: signing == nil ? nil : StampCell())
                }
                answer(nil)
                for (i, v) in release.variants.enumerated() where v.isLive { answer(i) }
            }
            guard !unchanged else { continue }
            // A file that stays under its name with the same digest keeps its cell (its
            // descriptor and headers): files never change under their name.
            let prior = counterpart.map(remove) ?? [:]
            Self.forEachFile(of: release) { name, sha256, size, publishedAt, contentType in
                let kept = prior[name].flatMap { $0.cell.sha256 == sha256 ? $0.cell : nil }
                files[name] = ModelFile(release: release, cell: kept ?? FileCell(
                    directory: store.directory, name: name, sha256: sha256, size: size, publishedAt: publishedAt,
                    contentType: contentType ?? servedType(release)))
            }
        }
        for gone in before[j...] { _ = remove(gone) }
        self.answers = answers
        self.files = files
        details = LatestBody(prepared: PreparedBody(snapshot.latestDetails), stamp: nil)
    }

    /// The files `release` serves: every file in any state until collected (SPEC §3.1), with
    /// what is derived from it: `<file>.chunks` (§14), `<file>.pack`, `<file>.from-<id>.patch`
    /// (§16). The content type is nil for the release's own file (its served type).
    private static func forEachFile(of release: Release,
                                    _ body: (_ name: String, _ sha256: String, _ size: Int64, _ publishedAt: Timestamp, _ contentType: String?) -> Void) {
        if release.fileDeletedAt == nil {
            body(release.file, release.sha256, release.size, release.publishedAt, nil)
            for d in release.derivedFiles { body(d.name, d.sha256, d.size, release.publishedAt, Release.byteStream) }
        }
        for v in release.variants where v.fileDeletedAt == nil {
            body(v.file, v.sha256, v.size, v.addedAt, v.contentType)
            for d in v.derivedFiles { body(d.name, d.sha256, d.size, v.addedAt, Release.byteStream) }
        }
    }

    /// What an update check for (`sdk`, `channel`, `clientID`, `device`) is answered at this
    /// version: the body with its signature, whether it depended on client_id (SPEC §4.1), nil
    /// for 404 `no_model`. The one entry point `/latest` (GET and POST) uses, per channel.
    func answer(sdk: SDKVersion, channel: String, clientID: String?, device: DeviceAttributes,
                bases: ReportedBases = .none) -> (body: LatestBody, privately: Bool)? {
        guard let a = snapshot.latest(sdk: sdk, channel: channel, clientID: clientID, device: device, bases: bases),
              let answerable = answers[a.key] else { return nil }
        let prepared = answerable.cell.prepared
        let stamp = signing.flatMap { answerable.stamp?.stamp(prepared.identity, $0, catalog: catalogVersion) }
        return (LatestBody(prepared: prepared, stamp: stamp), a.dependsOnClientID)
    }

    /// The possible answers of this version (for tests and checks): every active release and
    /// each of its live variants.
    var answerKeys: Dictionary<CatalogSnapshot.DocumentKey, Answerable>.Keys { answers.keys }

    /// The same catalog with every /latest signature to be made afresh (SPEC §12: every
    /// `resign_seconds`), the prepared bodies and open files kept.
    func resigned(_ signing: Signing) -> ServedCatalog {
        ServedCatalog(self, signing: signing)
    }

    private init(_ other: ServedCatalog, signing: Signing) {
        snapshot = other.snapshot
        self.signing = signing
        answers = other.answers.mapValues { Answerable(cell: $0.cell, stamp: StampCell()) }
        details = other.details
        files = other.files
    }

    static let empty = ServedCatalog()

    private init() {
        snapshot = CatalogSnapshot(catalog: .empty, publicBaseURL: "")
        signing = nil
        answers = [:]
        files = [:]
        details = LatestBody(prepared: PreparedBody(snapshot.latestDetails), stamp: nil)
    }
}

/// The catalog version in force; swapped whole by the watcher, SIGHUP or a publish.
final class CatalogHolder: Sendable {
    private let current = Mutex<ServedCatalog>(.empty)

    var served: ServedCatalog { current.withLock { $0 } }

    /// Answers the version it replaced, so that its caller frees it, outside the lock.
    @discardableResult
    func install(_ served: ServedCatalog) -> ServedCatalog {
        current.withLock { current in defer { current = served }; return current }
    }

    /// Installs `new` only if `old` is still current: a re-signed copy never replaces a catalog
    /// the watcher installed meanwhile.
    @discardableResult
    func replace(_ old: ServedCatalog, with new: ServedCatalog) -> Bool {
        current.withLock {
            guard $0 === old else { return false }
            $0 = new
            return true
        }
    }
}

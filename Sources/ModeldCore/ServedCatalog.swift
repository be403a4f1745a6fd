import BinaryText
import HTTPServer
import HTTPWire
import ModelCatalog
import ModeldSigning
import Synchronization

/// Everything a request needs from one catalog version, built once when the catalog changes:
/// the selection snapshot, every active release's /latest body with its gzip variant and strong
/// ETags, and every servable model file with its open descriptor and HTTP representation.
/// With signing on, each /latest body also carries its signature (SPEC §12), made here — on the
/// watcher or re-signing thread — so a request only copies two prepared header values.
final class ServedCatalog: Sendable {
    struct LatestBody: Sendable {
        let identity: [UInt8]
        let identityETag: String
        let gzip: [UInt8]
        let gzipETag: String
        /// Over the identity body, also sent with the gzip body and with 304s.
        var stamp: SignedStamp?
    }

    struct ModelFile: Sendable {
        let release: Release
        let file: OpenFile
        let representation: Representation
    }

    let snapshot: CatalogSnapshot
    let latestBodies: [CatalogSnapshot.DocumentKey: LatestBody]
    let details: LatestBody                     // /latest_model_details.json without sdk
    let files: [String: ModelFile]              // "<id>.<ext>" → file

    var catalogVersion: Int64 { snapshot.catalog.catalogVersion }

    /// URLs use the catalog's base (SPEC §9.1), so every answer equals what the derived file says.
    init(catalog: Catalog, store: CatalogStore, signing: Signing? = nil) {
        let base = store.baseURL(of: catalog)
        snapshot = CatalogSnapshot(catalog: catalog, publicBaseURL: base)
        var bodies: [CatalogSnapshot.DocumentKey: LatestBody] = [:]
        var files: [String: ModelFile] = [:]
        // One signed body per possible answer: each release and each of its live variants.
        for (key, document) in snapshot.documents {
            var body = Self.prepare(document)
            body.stamp = signing?.stamp(body.identity, catalog: catalog.catalogVersion)
            bodies[key] = body
        }
        for release in catalog.releases {
            // A file that cannot be opened (deleted by hand, not yet replicated) is simply not served.
            if release.fileDeletedAt == nil, let open = OpenFile.open(path: store.path(of: release)) {
                files[release.file] = ModelFile(release: release, file: open, representation: Self.representation(
                    size: release.size, sha256: release.sha256, publishedAt: release.publishedAt, contentType: release.servedContentType))
                Self.addDerived(release.derivedFiles, release: release, publishedAt: release.publishedAt, store: store, to: &files)
            }
            // Variant files: served in any state until collected, like the release's own (SPEC §3.1).
            for v in release.variants where v.fileDeletedAt == nil {
                guard let open = OpenFile.open(path: store.directory + "/" + v.file) else { continue }
                files[v.file] = ModelFile(release: release, file: open, representation: Self.representation(
                    size: v.size, sha256: v.sha256, publishedAt: v.addedAt, contentType: v.contentType))
                Self.addDerived(v.derivedFiles, release: release, publishedAt: v.addedAt, store: store, to: &files)
            }
        }
        latestBodies = bodies
        self.files = files
        details = Self.prepare(snapshot.latestDetails)
    }

    /// The same catalog with every /latest body signed afresh (SPEC §12: every `resign_seconds`).
    func resigned(_ signing: Signing) -> ServedCatalog {
        ServedCatalog(self, bodies: latestBodies.mapValues { body in
            var b = body
            b.stamp = signing.stamp(body.identity, catalog: catalogVersion)
            return b
        })
    }

    private init(_ other: ServedCatalog, bodies: [CatalogSnapshot.DocumentKey: LatestBody]) {
        snapshot = other.snapshot
        latestBodies = bodies
        details = other.details
        files = other.files
    }

    static let empty = ServedCatalog()

    private init() {
        snapshot = CatalogSnapshot(catalog: .empty, publicBaseURL: "")
        latestBodies = [:]
        files = [:]
        details = Self.prepare(snapshot.latestDetails)
    }

    /// What is derived from a file — `<file>.chunks` (SPEC §14), `<file>.pack` and
    /// `<file>.from-<id>.patch` (§16) — served like the model files, each with its own digest as
    /// ETag, for as long as its file is.
    private static func addDerived(
        _ derived: [DerivedFile], release: Release, publishedAt: Timestamp, store: CatalogStore, to files: inout [String: ModelFile]
    ) {
        for d in derived {
            guard let open = OpenFile.open(path: store.directory + "/" + d.name) else { continue }
            files[d.name] = ModelFile(release: release, file: open, representation: representation(
                size: d.size, sha256: d.sha256, publishedAt: publishedAt, contentType: Release.byteStream))
        }
    }

    /// Both encodings with their own strong ETags (SPEC §4.1: the gzip body has a different one).
    static func prepare(_ body: [UInt8]) -> LatestBody {
        let gzip = Gzip.compress(body)
        return LatestBody(identity: body, identityETag: GeneratedBodyETag.of(body), gzip: gzip, gzipETag: GeneratedBodyETag.of(gzip))
    }

    /// Model files never change: a year of immutable caching, the digest as ETag and Repr-Digest.
    private static func representation(size: Int64, sha256: String, publishedAt: Timestamp, contentType: String) -> Representation {
        Representation(
            size: size,
            etag: "\"\(sha256)\"",
            lastModified: publishedAt.millisecondsSinceEpoch / 1000,
            contentType: contentType,
            headers: [
                ("Cache-Control", "public, max-age=31536000, immutable"),
                ("Repr-Digest", "sha-256=:\(Base64.encode(Hex.decode(sha256) ?? [])):"),
            ])
    }

}

/// The catalog version in force; swapped whole by the watcher, SIGHUP or a publish.
final class CatalogHolder: Sendable {
    private let current = Mutex<ServedCatalog>(.empty)

    var served: ServedCatalog { current.withLock { $0 } }

    func install(_ served: ServedCatalog) { current.withLock { $0 = served } }

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

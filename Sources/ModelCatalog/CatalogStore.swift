#if canImport(Glibc)
import Glibc
#endif

/// The catalog on disk (SPEC §2, §9): `catalog.json`, the derived `latest_model_details.json`,
/// model files and the publish lock in one models directory. Stateless apart from paths, so
/// any number of stores (threads, processes, replicas) may point at one directory: every
/// change re-reads the catalog under the lock.
public final class CatalogStore: Sendable {
    public let directory: String
    /// For the `url` fields of the derived file.
    public let publicBaseURL: String

    public var catalogPath: String { directory + "/catalog.json" }
    public var latestDetailsPath: String { directory + "/latest_model_details.json" }
    public var lockPath: String { directory + "/.lock" }
    public var tempDirectory: String { directory + "/.tmp" }

    public init(directory: String, publicBaseURL: String) {
        var d = directory
        while d.count > 1 && d.hasSuffix("/") { d.removeLast() }
        self.directory = d
        self.publicBaseURL = publicBaseURL
    }

    public func path(of release: Release) -> String { directory + "/" + release.file }

    /// The catalog as on disk; absent file (or directory) = empty catalog; anything unreadable
    /// or invalid throws `corrupt_catalog`.
    public func load() throws(CatalogError) -> Catalog {
        guard let bytes = try FileIO.read(catalogPath) else { return .empty }
        return try Catalog(decoding: bytes)
    }

    /// Holds the publish lock, re-reads the catalog from disk, applies `body`, and when the
    /// catalog changed writes catalog.json then latest_model_details.json atomically (SPEC §9).
    /// Every change goes through here, so every change bumps `catalog_version` (SPEC §12): `body`
    /// already sees the version its change will have (to report it); a no-op bumps nothing.
    @discardableResult
    public func mutate<T>(_ body: (inout Catalog) throws(CatalogError) -> T) throws(CatalogError) -> T {
        try FileIO.makeDirectory(directory)
        return try PublishLock.withLock(path: lockPath) { () throws(CatalogError) -> T in
            var catalog = try load()
            catalog.catalogVersion += 1
            let unchanged = catalog
            let result = try body(&catalog)
            if catalog != unchanged { try write(catalog) }
            return result
        }
    }

    private func write(_ catalog: Catalog) throws(CatalogError) {
        try FileIO.atomicReplace(catalogPath, with: catalog.encoded())
        do throws(CatalogError) {
            try FileIO.atomicReplace(latestDetailsPath, with: catalog.latestDetailsJSON(publicBaseURL: publicBaseURL))
        } catch {
            throw CatalogError(error.code, "the catalog was updated but latest_model_details.json was not: \(error.message)")
        }
    }

    /// Rewrites the derived file from the catalog on disk (e.g. after `public_base_url` changed).
    public func rewriteLatestDetails() throws(CatalogError) {
        try FileIO.makeDirectory(directory)
        try PublishLock.withLock(path: lockPath) { () throws(CatalogError) in
            try FileIO.atomicReplace(latestDetailsPath, with: try load().latestDetailsJSON(publicBaseURL: publicBaseURL))
        }
    }

    // MARK: - Operations

    /// Publishes a verified upload. Crash-safe order: the file is renamed to `<id>.<ext>` and
    /// the directory fsynced before the catalog names it, so a crash leaves at most an
    /// unreferenced file. Consumes the upload: on any error its temp file is deleted.
    public func publish(_ upload: FinishedUpload, _ request: PublishRequest, now: Timestamp = .now()) throws(CatalogError) -> Versioned<Release> {
        var renamedTo: String?
        var newID: String?
        do throws(CatalogError) {
            return try mutate { (catalog) throws(CatalogError) -> Versioned<Release> in
                var id = request.id ?? Release.newID()
                while request.id == nil && catalog.release(id: id) != nil { id = Release.newID() }
                let release = try catalog.append { (seq) throws(CatalogError) in
                    try Release(
                        id: id, seq: seq, ext: request.ext, sha256: upload.sha256, size: upload.size,
                        sdkMin: request.sdkMin, sdkMax: request.sdkMax, channel: request.channel,
                        rolloutPercent: request.rolloutPercent, label: request.label, publishedAt: now,
                        contentType: request.contentType)
                }
                newID = release.id
                let target = path(of: release)
                try FileIO.rename(upload.path, target)
                renamedTo = target
                try FileIO.fsyncDirectory(directory)
                return Versioned(release, catalogVersion: catalog.catalogVersion)
            }
        } catch {
            // Nothing kept: neither the temp nor a file the catalog does not name. If catalog.json
            // was replaced and only the derived file failed, the release stands and keeps its file.
            unlink(upload.path)
            if let renamedTo, let newID, (try? load())?.release(id: newID) == nil { unlink(renamedTo) }
            throw error
        }
    }

    /// `modelctl publish --models-dir`: streams a local file through the same UploadWriter
    /// (64 KiB chunks, never whole in memory) and the same publish path.
    public func publishFile(
        path source: String, _ request: PublishRequest, instance: String,
        expectedSHA256: String? = nil, now: Timestamp = .now()
    ) throws(CatalogError) -> Versioned<Release> {
        let fd: Int32
        do { fd = try FileIO.open(source, O_RDONLY) } catch {
            throw CatalogError(.invalidParameter, parameter: "file", error.message)
        }
        defer { close(fd) }
        let writer = try UploadWriter(modelsDirectory: directory, instance: instance)
        let chunkSize = 64 * 1024
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let n = read(fd, buffer.baseAddress, chunkSize)
            if n < 0 {
                if errno == EINTR { continue }
                let e = FileIO.error("read", source)
                writer.abort()
                throw e
            }
            if n == 0 { break }
            try writer.write(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
        }
        let upload = try writer.finish(expectedSHA256: expectedSHA256)
        return try publish(upload, request, now: now)
    }

    public func patch(id: String, _ patch: ReleasePatch, now: Timestamp = .now()) throws(CatalogError) -> Versioned<Release> {
        try mutate { (catalog) throws(CatalogError) in
            Versioned(try catalog.apply(patch, to: id, now: now), catalogVersion: catalog.catalogVersion)
        }
    }

    /// `DELETE /admin/models/ID`: retired is final; retiring again is `retired` (409).
    public func retire(id: String, now: Timestamp = .now()) throws(CatalogError) -> Versioned<Release> {
        try mutate { (catalog) throws(CatalogError) in
            Versioned(try catalog.retire(id: id, now: now), catalogVersion: catalog.catalogVersion)
        }
    }

    /// Deletes the files of releases retired more than `graceDays` ago and marks them
    /// `file_deleted_at` (the entries stay: ids are never reused). The catalog is written
    /// after the unlinks, so a crash in between leaves an entry whose missing file is about
    /// to be marked — served as 404 either way since the file is gone. Returns what it collected.
    @discardableResult
    public func collectGarbage(graceDays: Int, now: Timestamp = .now()) throws(CatalogError) -> [Release] {
        try mutate { (catalog) throws(CatalogError) -> [Release] in
            var collected: [Release] = []
            for (i, r) in catalog.releases.enumerated() {
                guard r.state == .retired, r.fileDeletedAt == nil, let retiredAt = r.retiredAt,
                      retiredAt.adding(days: graceDays) <= now else { continue }
                if unlink(path(of: r)) != 0 && errno != ENOENT { throw FileIO.error("unlink", path(of: r)) }
                catalog.markFileDeleted(index: i, at: now)
                collected.append(catalog.releases[i])
            }
            if !collected.isEmpty { try FileIO.fsyncDirectory(directory) }
            return collected
        }
    }

    /// Start-up: removes this instance's abandoned uploads (only its own: other replicas sharing
    /// the directory may be mid-upload). Returns how many were removed.
    @discardableResult
    public func cleanTemp(instance: String) -> Int {
        let prefix = instance + "-"
        var removed = 0
        for name in FileIO.entries(of: tempDirectory) where name.hasPrefix(prefix) {
            let suffix = name.dropFirst(prefix.count)
            // Exactly `<instance>-<16 hex>`, so instance `a` never matches `a-b-…` of instance `a-b`.
            guard suffix.utf8.count == 16, suffix.utf8.allSatisfy({ Release.isHexDigit($0, allowUpper: false) }) else { continue }
            if unlink(tempDirectory + "/" + name) == 0 { removed += 1 }
        }
        return removed
    }
}

#if canImport(Glibc)
import Glibc
import Guardrails
#endif
import DurableFiles
import ModeldSigning
import Synchronization

/// The catalog on disk (SPEC §2, §9): `catalog.json`, the derived `latest_model_details.json`,
/// model files and the publish lock in one models directory. Stateless apart from paths, so
/// any number of stores (threads, processes, replicas) may point at one directory: every
/// change re-reads the catalog under the lock.
public final class CatalogStore: Sendable {
    public let directory: String
    /// This writer's base URL (configured, or its fallback): recorded by the first change of a
    /// catalog that has none; afterwards the catalog's own base is used (SPEC §9.1).
    public let publicBaseURL: String
    /// True when `publicBaseURL` is a fallback (derived from the bound address, modelctl's
    /// default) rather than configured: a fallback defers to the catalog's base, a configured
    /// base that differs from it refuses to write (`base_url_mismatch`).
    public let isFallbackBaseURL: Bool
    /// The rules files every change writes (SPEC §9.2), signed with this writer's keys if any.
    public let rules: RulesFiles
    /// Where this writer reports a derived snapshot it refused to sign (SPEC §12.1): modeld logs
    /// and counts it, modelctl prints it. nil: a reader that never signs.
    public let onRefused: (@Sendable (SnapshotMismatch) -> Void)?

    /// The catalog this store last wrote or decoded, with the stamp of its file (taken under the
    /// publish lock for a write, before the read for a decode): while catalog.json still has
    /// that stamp, `load` answers it without reading or decoding (SPEC §17.1). So the writer
    /// hands its catalog to its own reload (no second decode after a write), and a change's
    /// re-read under the lock or a guard's poll of an unchanged file decodes nothing; any other
    /// writer's file has another stamp and is read. One cell, so one catalog is kept, not two.
    private let known = Mutex<(stamp: FileStamp, catalog: Catalog, written: Bool)?>(nil)

    public var catalogPath: String { directory + "/catalog.json" }
    public var latestDetailsPath: String { directory + "/latest_model_details.json" }
    public var lockPath: String { directory + "/.lock" }
    public var tempDirectory: String { directory + "/.tmp" }

    /// `signer`: this writer's keys for the rules pointers (nil: written unsigned); `graceDays`:
    /// how long superseded rules snapshots stay (`retired_grace_days`).
    public init(directory: String, publicBaseURL: String, isFallbackBaseURL: Bool = false, signer: Signer? = nil, graceDays: Int = 7,
                onRefused: (@Sendable (SnapshotMismatch) -> Void)? = nil) {
        var d = directory
        while d.count > 1 && d.hasSuffix("/") { d.removeLast() }
        self.directory = d
        self.onRefused = onRefused
        rules = RulesFiles(modelsDirectory: d, signer: signer, graceDays: graceDays, onRefused: onRefused)
        var base = publicBaseURL
        while base.hasSuffix("/") { base.removeLast() }
        self.publicBaseURL = base
        self.isFallbackBaseURL = isFallbackBaseURL
    }

    public func path(of release: Release) -> String { directory + "/" + release.file }

    /// The catalog as on disk; absent file (or directory) = empty catalog; anything unreadable
    /// or invalid throws `corrupt_catalog`.
    /// The catalog this store last wrote or read is answered without reading while the file is
    /// still that one (`known`).
    public func load() throws(CatalogError) -> Catalog {
        let stamp = FileStamp(of: catalogPath)
        if let known = known.withLock({ $0 }), known.stamp == stamp { return known.catalog }
        return try loadFromDisk()
    }

    /// `load` from the file whatever this store wrote or read (SIGHUP: the operator asks for the file).
    public func loadFromDisk() throws(CatalogError) -> Catalog {
        // Stamped before the read: a file replaced meanwhile is read again next time.
        let stamp = FileStamp(of: catalogPath)
        guard let bytes = try FileIO.read(catalogPath) else { return .empty }
        let catalog = try Catalog(decoding: bytes, previous: known.withLock { $0?.catalog })
        // Still the file this store wrote (a SIGHUP after its own change): still written by it.
        known.withLock { $0 = (stamp, catalog, $0?.written == true && $0?.stamp == stamp) }
        return catalog
    }

    /// Whether catalog.json is still the file this store last wrote (its rules files with it).
    public var isOnDiskAsWritten: Bool {
        let stamp = FileStamp(of: catalogPath)
        return known.withLock { $0?.written == true && $0?.stamp == stamp }
    }

    /// The base every `url` of `catalog` uses: its recorded one, else this writer's.
    public func baseURL(of catalog: Catalog) -> String { catalog.publicBaseURL ?? publicBaseURL }

    /// Throws `base_url_mismatch` naming both when this writer's configured base is not the one
    /// `catalog` recorded: writing would change every client's URL, which only
    /// `setPublicBaseURL` (`modelctl catalog set-base-url`) does, deliberately.
    public func checkBaseURL(_ catalog: Catalog) throws(CatalogError) {
        guard !isFallbackBaseURL, let recorded = catalog.publicBaseURL, recorded != publicBaseURL else { return }
        throw CatalogError(.baseURLMismatch, parameter: "public_base_url",
            "the catalog's base URL is \(recorded) but this writer's public_base_url is \(publicBaseURL); "
            + "use the catalog's, or change it deliberately with `modelctl catalog set-base-url \(publicBaseURL) --models-dir \(directory)`")
    }

    /// Holds the publish lock, re-reads the catalog from disk, applies `body`, and when the
    /// catalog changed writes catalog.json then latest_model_details.json atomically (SPEC §9).
    /// Every change goes through here, so every change bumps `catalog_version` (SPEC §12); a
    /// no-op or a failure bumps nothing. A catalog without a base URL records this writer's;
    /// one with another base refuses a configured writer (`checkBaseURL`).
    @discardableResult
    public func mutate<T>(_ body: (inout Catalog) throws(CatalogError) -> T) throws(CatalogError) -> T {
        try locked(asWriter: true, body).result
    }

    /// `mutate`, answering with the catalog version (and base) that holds the result: the
    /// version the change made, or the current one when nothing changed.
    /// `whileLocked` runs after catalog.json holds the change and before the lock is released:
    /// a record of the change (the guard's `manual_override`) is written exactly once, by the
    /// writer that made it, in the same order as the changes.
    public func mutateVersioned<T: Sendable>(_ body: (inout Catalog) throws(CatalogError) -> T,
                                             whileLocked: ((T) throws(CatalogError) -> Void)? = nil) throws(CatalogError) -> Versioned<T> {
        let (result, catalog) = try locked(asWriter: true, body, whileLocked: whileLocked)
        return Versioned(result, in: catalog)
    }

    /// `modelctl catalog set-base-url`: makes `url` the catalog's base (and rewrites the derived
    /// file with it) whatever was recorded — the one deliberate way to change it. Returns the
    /// base recorded before (nil: none) in the version that changed it; the same URL is a no-op.
    public func setPublicBaseURL(_ url: String) throws(CatalogError) -> Versioned<String?> {
        var base = url
        while base.hasSuffix("/") { base.removeLast() }
        guard Catalog.isBaseURL(base) else { throw .invalid("public_base_url", "\(url) is not an http:// or https:// URL") }
        let (previous, catalog) = try locked(asWriter: false) { (catalog) throws(CatalogError) -> String? in
            defer { catalog.publicBaseURL = base }
            return catalog.publicBaseURL
        }
        return Versioned(previous, in: catalog)
    }

    /// `modelctl catalog bump` (SPEC §12.1): version N+1 with nothing else changed, so every
    /// writer derives fresh snapshots for it where a file for N holds other bytes. Returns N+1.
    public func bump() throws(CatalogError) -> Int64 {
        // Any difference makes `locked` write; it then sets the version to N+1 itself.
        try locked(asWriter: true) { (catalog) throws(CatalogError) in catalog.catalogVersion += 1 }.catalog.catalogVersion
    }

    /// The lock, the re-read and the version bump every change shares; writes only on change.
    /// `asWriter`: check this writer's base and record it in a catalog without one (recorded
    /// with the first real change, not by itself).
    /// Returns the result and the catalog as it now stands.
    private func locked<T>(asWriter: Bool, _ body: (inout Catalog) throws(CatalogError) -> T,
                           whileLocked: ((T) throws(CatalogError) -> Void)? = nil) throws(CatalogError) -> (result: T, catalog: Catalog) {
        try FileIO.makeDirectory(directory)
        return try PublishLock.withLock(path: lockPath) { () throws(CatalogError) -> (result: T, catalog: Catalog) in
            var catalog = try load()
            if asWriter {
                try checkBaseURL(catalog)
                if catalog.publicBaseURL == nil { catalog.publicBaseURL = publicBaseURL }
            }
            let unchanged = catalog
            let result = try body(&catalog)
            guard catalog != unchanged else { return (result, unchanged) }
            catalog.catalogVersion = unchanged.catalogVersion + 1
            try write(catalog, channels: catalog.changedChannels(since: unchanged))
            try whileLocked?(result)
            return (result, catalog)
        }
    }

    /// `channels`: the channels whose rules the change touched (nil: every channel).
    private func write(_ catalog: Catalog, channels: Set<String>?) throws(CatalogError) {
        known.withLock { $0 = nil }
        try FileIO.atomicReplace(catalogPath, with: catalog.encoded())
        let stamp = FileStamp(of: catalogPath)   // under the lock: the file just written
        do throws(CatalogError) {
            try FileIO.atomicReplace(latestDetailsPath, with: catalog.latestDetailsJSON(publicBaseURL: baseURL(of: catalog)))
        } catch {
            throw CatalogError(error.code, "the catalog was updated but latest_model_details.json was not: \(error.message)")
        }
        do throws(CatalogError) {
            try rules.write(catalog, publicBaseURL: baseURL(of: catalog), now: Timestamp.now().millisecondsSinceEpoch / 1000,
                            resign: false, only: channels)
        } catch {
            throw CatalogError(error.code, "the catalog was updated but its rules files were not: \(error.message)")
        }
        // Only a complete write is handed on: after a failure the next reader reads the file,
        // and a refresh checks every channel.
        known.withLock { $0 = (stamp, catalog, true) }
    }

    // MARK: - Operations

    /// Publishes a verified upload. Consumes the upload (see `commit`).
    public func publish(_ upload: FinishedUpload, _ request: PublishRequest, now: Timestamp = .now()) throws(CatalogError) -> Versioned<Release> {
        let unpackedSize = Self.unpackedSize(of: upload, ext: request.ext)   // outside the lock: it reads the file
        return try commit(upload, isRecorded: { $0.release(id: $1.id) != nil }) { (catalog, chunks) throws(CatalogError) in
            try request.precheck(against: catalog)
            var id = request.id ?? Release.newID()
            while request.id == nil && catalog.isIDInUse(id) { id = Release.newID() }
            let release = try catalog.append { (seq) throws(CatalogError) in
                var release = try Release(
                    id: id, seq: seq, ext: request.ext, sha256: upload.sha256, size: upload.size, chunks: chunks,
                    sdkMin: request.sdkMin, sdkMax: request.sdkMax, channel: request.channel,
                    rolloutPercent: request.rolloutPercent, label: request.label, publishedAt: now,
                    contentType: request.contentType, guardPlan: request.guardPlan.map { $0.started(at: now) },
                    base: request.base, info: request.info)
                release.unpackedSize = unpackedSize
                return release
            }
            return (release, release.file)
        }
    }

    /// Adds a verified upload as a variant of release `id` (SPEC §3.1) under a fresh UUID file
    /// name; answers the release. Consumes the upload (see `commit`).
    public func addVariant(_ upload: FinishedUpload, to id: String, _ request: VariantRequest, now: Timestamp = .now()) throws(CatalogError) -> Versioned<Release> {
        let unpackedSize = Self.unpackedSize(of: upload, ext: request.ext)
        return try commit(upload, isRecorded: { c, r in c.release(id: r.id)?.liveVariant(named: request.name) != nil }) { (catalog, chunks) throws(CatalogError) in
            var fileID = Release.newID()
            while catalog.isIDInUse(fileID) { fileID = Release.newID() }
            var variant = try Variant(name: request.name, fileID: fileID, ext: request.ext, sha256: upload.sha256,
                                      size: upload.size, chunks: chunks, requires: request.requires, addedAt: now)
            variant.unpackedSize = unpackedSize
            return (try catalog.addVariant(variant, to: id), variant.file)
        }
    }

    /// SPEC §3.2 `disk_bytes`: what a zip unpacks to on the device, for the files the client
    /// unpacks (`ext` ending in `zip`).
    private static func unpackedSize(of upload: FinishedUpload, ext: String) -> Int64? {
        ext.hasSuffix("zip") ? ZipContents.unpackedSize(ofFileAt: upload.path) : nil
    }

    /// Crash-safe order for every new file: its chunk list (SPEC §14) is written durably and
    /// the upload renamed to its final name and the directory fsynced inside the catalog change,
    /// before catalog.json names them, so a crash leaves at most unreferenced files. On any
    /// error nothing is kept: neither the temp nor a file the catalog does not name (if
    /// catalog.json was replaced and only the derived file failed, the change stands and keeps
    /// its files: `isRecorded`).
    private func commit<T: Sendable>(
        _ upload: FinishedUpload, isRecorded: (Catalog, T) -> Bool,
        _ change: (inout Catalog, ChunkListFile) throws(CatalogError) -> (T, file: String)
    ) throws(CatalogError) -> Versioned<T> {
        let listBytes = upload.chunkList.encoded()
        var written: (file: String, result: T?)?
        do throws(CatalogError) {
            return try mutateVersioned { (catalog) throws(CatalogError) -> T in
                let (result, file) = try change(&catalog, ChunkListFile(encoded: listBytes))
                written = (file, nil)
                try ChunkListFile.write(listBytes, directory: directory, file: file)
                try FileIO.rename(upload.path, directory + "/" + file)
                written = (file, result)
                try FileIO.fsyncDirectory(directory)
                return result
            }
        } catch {
            unlink(upload.path)
            // Cleanup on the error path: a catalog that cannot be read does not record the file,
            // so the orphan goes; the original error is what the caller gets.
            if let written, !(written.result.flatMap { r in (try? load()).map { isRecorded($0, r) } } ?? false) {
                unlink(directory + "/" + written.file)
                unlink(directory + "/" + ChunkListFile.name(of: written.file))
            }
            throw error
        }
    }

    /// `DELETE /admin/models/ID/variants/NAME`: the variant stops being answered at once; its
    /// file follows the retired-file grace (`removed_at`) and garbage collection.
    public func removeVariant(named name: String, from id: String, now: Timestamp = .now()) throws(CatalogError) -> Versioned<Release> {
        try mutateVersioned { (catalog) throws(CatalogError) in try catalog.removeVariant(named: name, from: id, now: now) }
    }

    /// `modelctl publish --models-dir`: streams a local file through the same UploadWriter
    /// (64 KiB chunks, never whole in memory) and the same publish path.
    public func publishFile(
        path source: String, _ request: PublishRequest, instance: String,
        expectedSHA256: String? = nil, now: Timestamp = .now()
    ) throws(CatalogError) -> Versioned<Release> {
        try publish(try stageFile(path: source, instance: instance, expectedSHA256: expectedSHA256), request, now: now)
    }

    /// `modelctl variant add --models-dir`: the same streaming, then `addVariant`.
    public func addVariantFile(path source: String, to id: String, _ request: VariantRequest, instance: String) throws(CatalogError) -> Versioned<Release> {
        try addVariant(try stageFile(path: source, instance: instance), to: id, request)
    }

    /// Copies a local file into `.tmp/` in 64 KiB chunks, hashing as it goes.
    private func stageFile(path source: String, instance: String, expectedSHA256: String? = nil) throws(CatalogError) -> FinishedUpload {
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
        return try writer.finish(expectedSHA256: expectedSHA256)
    }

    /// The catalog change alone. An operator's change goes through GuardRuntime's
    /// `ManualChange`, which also records the `manual_override` of a guard it stops.
    public func patch(id: String, _ patch: ReleasePatch, now: Timestamp = .now()) throws(CatalogError) -> Versioned<Release> {
        try mutateVersioned { (catalog) throws(CatalogError) in try catalog.apply(patch, to: id, now: now) }
    }

    /// `DELETE /admin/models/ID`: retired is final; retiring again is `retired` (409).
    public func retire(id: String, now: Timestamp = .now()) throws(CatalogError) -> Versioned<Release> {
        try mutateVersioned { (catalog) throws(CatalogError) in try catalog.retire(id: id, now: now) }
    }

    /// Deletes the files whose grace is over and marks them `file_deleted_at` (the entries stay:
    /// ids are never reused): a release retired more than `graceDays` ago with all its variant
    /// files, and a variant removed more than `graceDays` ago. The catalog is written after the
    /// unlinks, so a crash in between leaves an entry whose missing file is about to be marked —
    /// served as 404 either way since the file is gone. Returns the releases it collected from.
    @discardableResult
    public func collectGarbage(graceDays: Int, now: Timestamp = .now()) throws(CatalogError) -> [Release] {
        try mutate { (catalog) throws(CatalogError) -> [Release] in
            var collected: [Release] = []
            for (i, r) in catalog.releases.enumerated() {
                let expired = { (t: Timestamp?) in t.map { $0.adding(days: graceDays) <= now } ?? false }
                let releaseDue = r.state == .retired && r.fileDeletedAt == nil && expired(r.retiredAt)
                var files: [String] = releaseDue ? [r.file] : []   // each with its chunk list (SPEC §14)
                var derived = releaseDue ? r.transfer?.names(of: r.file) ?? [] : []   // and its pack and patches (§16)
                for v in r.variants where v.fileDeletedAt == nil && (expired(v.removedAt) || (r.state == .retired && expired(r.retiredAt))) {
                    files.append(v.file)
                    derived += v.transfer?.names(of: v.file) ?? []
                }
                guard !files.isEmpty else { continue }
                try removeFiles(files.flatMap { [$0, ChunkListFile.name(of: $0)] } + derived)
                catalog.markFilesDeleted(index: i, files: Set(files), at: now)
                collected.append(catalog.releases[i])
            }
            if !collected.isEmpty {
                try removeFiles(catalog.dropPatchesFromCollectedBases())
                try FileIO.fsyncDirectory(directory)
            }
            return collected
        }
    }

    /// Deletes `names` from the models directory; one already gone is fine.
    private func removeFiles(_ names: [String]) throws(CatalogError) {
        for f in names where unlink(directory + "/" + f) != 0 && errno != ENOENT {
            throw FileIO.error("unlink", directory + "/" + f)
        }
    }

    /// Start-up: removes this instance's abandoned temp files (SPEC §2), whatever writer left
    /// them; other replicas sharing the directory may be mid-upload, so only its own. A name is
    /// `<instance>-<suffix>` where the suffix has no `-` (every writer's suffix is hex, maybe with
    /// a dotted extension): instance ids may contain `-`, so the owner is everything before the
    /// *last* `-`, and instance `a` never deletes `a-b-<hex>` of instance `a-b`. Returns the count.
    @discardableResult
    public func cleanTemp(instance: String) -> Int {
        var removed = 0
        for name in FileIO.entries(of: tempDirectory) where Self.tempOwner(name) == Substring(instance) {
            if unlink(tempDirectory + "/" + name) == 0 { removed += 1 }
        }
        return removed
    }

    /// Removes what killed writers left in the models directory, by any instance or modelctl,
    /// once it is older than `DurableFile.staleTempAge` (so never a live writer's): SPEC §2's
    /// atomic-replace temps (`.<name>.tmp-<pid>-<hex>`) next to the catalog, the chunk lists,
    /// the signed snapshots and the rules files, and uploads in `.tmp/` (any name: nothing else
    /// lives there; a live upload writes continuously). Answers the paths removed, relative to
    /// the models directory. `cleanTemp` stays the start-up rule for an instance's own uploads,
    /// which need no waiting.
    @discardableResult
    public func removeStaleTemps(now: Int64) -> [String] {
        let rules = SignedPointer.rulesDirectory
        var directories = ["", "/" + SignedPointer.snapshotDirectory, "/" + rules]
        for name in FileIO.entries(of: directory + "/" + rules) where !name.hasPrefix(".") { directories.append("/\(rules)/\(name)") }
        var removed: [String] = []
        for sub in directories {
            let prefix = sub.isEmpty ? "" : String(sub.dropFirst()) + "/"
            removed += DurableFile.removeStaleTemps(in: directory + sub, now: now).map { prefix + $0 }
        }
        removed += DurableFile.removeStaleTemps(in: tempDirectory, now: now, isTemp: { _ in true }).map { ".tmp/" + $0 }
        return removed
    }

    /// The instance a temp name belongs to: everything before its last `-` (nil without one).
    static func tempOwner(_ name: String) -> Substring? {
        guard let dash = name.lastIndex(of: "-"), dash != name.startIndex else { return nil }
        return name[..<dash]
    }
}

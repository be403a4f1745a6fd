import DurableFiles
import Foundation

/// `state.json`: everything the client must remember across launches, replaced atomically.
struct CacheState: Codable, Equatable {
    var clientID: String
    /// The installed model in use (nil = the app's bundled base model).
    var active: String?
    /// Earlier models kept for rollback, most recent first.
    var previous: [String] = []
    /// Ids the app reported bad or that crash-looped: never installed again.
    var blocked: [String] = []
    /// Launches of `active` that ended without `markGood`, background or a clean end, in a row
    /// (the crash-loop rule, ``LaunchHealth``). Replaces v3's `activations`, which counted
    /// every launch and so blocked models that were merely unused; an old value is not carried over.
    var unconfirmedLaunches = 0
    var activeIsGood = false
    /// Revalidation of the last dynamic answer: its ETag and identity body.
    var etag: String?
    var lastBody: String?
    /// The highest catalog version a verified answer carried (rollback protection, SPEC §12).
    var highestCatalog: Int64?
    /// Back-off: consecutive failures and the earliest time of the next request.
    var failures = 0
    var notBefore: Date?
    /// The last failure's `Retry-After`, which even a user-initiated update honours for 60 s.
    var retryAfter: RetryAfterRecord?

    enum CodingKeys: String, CodingKey {
        case clientID = "client_id", active, previous, blocked, unconfirmedLaunches = "unconfirmed_launches"
        case activeIsGood = "active_is_good", etag, lastBody = "last_body"
        case highestCatalog = "highest_catalog", failures, notBefore = "not_before", retryAfter = "retry_after"
    }

    init(clientID: String) { self.clientID = clientID }

    /// Every key but `client_id` may be missing: a file of an earlier version lacks the newer
    /// ones (v3 has no `unconfirmed_launches`), and they start from their defaults.
    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        clientID = try c.decode(String.self, forKey: .clientID)
        active = try c.decodeIfPresent(String.self, forKey: .active)
        previous = try c.decodeIfPresent([String].self, forKey: .previous) ?? []
        blocked = try c.decodeIfPresent([String].self, forKey: .blocked) ?? []
        unconfirmedLaunches = try c.decodeIfPresent(Int.self, forKey: .unconfirmedLaunches) ?? 0
        activeIsGood = try c.decodeIfPresent(Bool.self, forKey: .activeIsGood) ?? false
        etag = try c.decodeIfPresent(String.self, forKey: .etag)
        lastBody = try c.decodeIfPresent(String.self, forKey: .lastBody)
        highestCatalog = try c.decodeIfPresent(Int64.self, forKey: .highestCatalog)
        failures = try c.decodeIfPresent(Int.self, forKey: .failures) ?? 0
        notBefore = try c.decodeIfPresent(Date.self, forKey: .notBefore)
        retryAfter = try c.decodeIfPresent(RetryAfterRecord.self, forKey: .retryAfter)
    }
}

/// An installed model: the verified file and the release it came from (or the model the app
/// bundles, ``isBundled``).
public struct InstalledModel: Sendable, Equatable {
    public let release: ReleaseDocument
    /// The model file (`models/<id>/model.<ext>`; a bundled model's configured URL).
    public let path: URL
    /// What the app loads when it is not the file itself: the unpacked archive
    /// (`models/<id>/model/`) or the model Core ML compiled (`models/<id>/model.mlmodelc`).
    public var prepared: URL?
    /// The model the app ships (``ModeldConfiguration/bundledModel``), not a file of the cache.
    public var isBundled = false
    public var id: String { release.id }
    public var sha256: String { release.sha256 }
    public var size: Int64 { release.size }
    /// What the release said before the download (SPEC §3.2), kept with the model.
    public var displayName: String? { release.displayName }
    public var license: ReleaseLicense? { release.license }
    public var minRAMMB: Int? { release.minRAMMB }
    public var diskBytes: Int64? { release.diskBytes }
    /// The model this one applies on top of (an adapter), nil for a model that stands alone.
    public var base: ReleaseBase? { release.base }
}

/// One channel's part of the cache (``CacheDirectory``) and the only writer of its
/// `state.json` and `models/`.
///
/// ```
/// state.json   models/<id>/{model.<ext>,release.json[,model/]}   partial/<id>.{part,json}   events/   lock
/// ```
struct CacheStore {
    let root: URL
    var models: URL { root.appendingPathComponent("models") }
    var partial: URL { root.appendingPathComponent("partial") }
    var events: URL { root.appendingPathComponent("events") }
    var stateURL: URL { root.appendingPathComponent("state.json") }
    var lockURL: URL { root.appendingPathComponent("lock") }

    /// Temps of atomic writes an app killed mid-write left here (`DurableFile.removeStaleTemps`:
    /// only stale ones, though the channel lock already excludes other writers). Best effort:
    /// a leftover costs disk space, not correctness.
    func removeStaleTemps(now: Int64) {
        var directories = [root, partial, events, models]
        directories += ((try? FileManager.default.contentsOfDirectory(at: models, includingPropertiesForKeys: nil)) ?? [])   // unreadable: nothing swept
        for dir in directories { DurableFile.removeStaleTemps(in: dir.path, now: now) }
    }

    func createDirectories() throws {
        for dir in [root, models, partial, events] {
            do { try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true) } catch {
                throw ModeldClientError.io("cannot create \(dir.path): \(error.localizedDescription)")
            }
        }
    }

    /// The channel's state. Only a missing `state.json` (ENOENT) is a first start, which gets
    /// `clientID` (configured, or the install's identity); an unreadable or corrupt one is an
    /// error and stays untouched, so the client id and the catalog ratchet are never silently
    /// lost (SPEC §13.1).
    func loadState(clientID: String, configured: Bool) throws -> CacheState {
        guard let data = try DiskIO.readIfExists(stateURL) else {
            let state = CacheState(clientID: clientID)
            try save(state)
            return state
        }
        var state = try Self.decode(data, from: stateURL)
        if configured { state.clientID = clientID }
        return state
    }

    static func decode(_ data: Data, from url: URL) throws -> CacheState {
        do {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            return try decoder.decode(CacheState.self, from: data)
        } catch {
            throw ModeldClientError.io("\(url.path) is not a client state file (it is kept as it is): \(error.localizedDescription)")
        }
    }

    func save(_ state: CacheState) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        try DiskIO.atomicWrite(try encoder.encode(state), to: stateURL)
    }

    /// The model installed as `id`, nil when it is not (completely) there: an install writes
    /// the directory by one rename, so a missing or unreadable part means it was collected or
    /// deleted, and the caller falls back (to the previous or the bundled model).
    func installed(_ id: String) -> InstalledModel? {
        let dir = models.appendingPathComponent(id)
        guard let data = try? Data(contentsOf: dir.appendingPathComponent("release.json")),  // see above: absent = not installed
              let release = try? JSONDecoder().decode(ReleaseDocument.self, from: data) else { return nil }  // written by us from a verified release
        let path = dir.appendingPathComponent("model.\(release.fileExtension)")
        guard FileManager.default.fileExists(atPath: path.path) else { return nil }
        return InstalledModel(release: release, path: path, prepared: Self.prepared(in: dir))
    }

    /// The compiled model, else the unpacked archive, else nil.
    static func prepared(in dir: URL) -> URL? {
        [dir.appendingPathComponent("model.mlmodelc"), dir.appendingPathComponent(ModelUnpacker.directoryName)]
            .first { FileManager.default.fileExists(atPath: $0.path) }
    }

    /// Moves a verified file into a staging directory (`models/.<id>.tmp-…/`) with its release.
    func stage(_ file: URL, as release: ReleaseDocument) throws -> URL {
        let staging = models.appendingPathComponent(".\(release.id).tmp-\(UUID().uuidString)")
        do {
            try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: false)
            try DiskIO.moveDurably(file, to: staging.appendingPathComponent("model.\(release.fileExtension)"))
            try DiskIO.atomicWrite(Data(release.json), to: staging.appendingPathComponent("release.json"))   // the document's one encoder (ReleaseSelection)
        } catch {
            try? FileManager.default.removeItem(at: staging)  // the error above is the one to report; a leftover is collected at the next start
            throw error
        }
        return staging
    }

    /// Renames a staging directory to `models/<id>/`: a crash leaves either no directory or a
    /// complete one (a half-built one only under its staging name, collected later).
    func commit(_ staging: URL, as release: ReleaseDocument) throws -> InstalledModel {
        let target = models.appendingPathComponent(release.id)
        do {
            if FileManager.default.fileExists(atPath: target.path) { try FileManager.default.removeItem(at: target) }
            try DiskIO.moveDurably(staging, to: target)
        } catch {
            try? FileManager.default.removeItem(at: staging)  // the error above is the one to report; a leftover is collected at the next start
            throw error
        }
        return InstalledModel(release: release, path: target.appendingPathComponent("model.\(release.fileExtension)"),
                              prepared: Self.prepared(in: target))
    }

    /// Deletes one installed model's directory.
    func remove(_ id: String) throws {
        do { try FileManager.default.removeItem(at: models.appendingPathComponent(id)) } catch {
            throw ModeldClientError.io("cannot delete model \(id): \(error.localizedDescription)")
        }
    }

    /// Deletes model directories not in `keep` and staging leftovers of a crash (but not the
    /// staging directory of a download in flight). Best effort, so the `try?`s: collecting
    /// garbage must never fail an install or a start, and what stays is collected next time.
    func collectModels(keep: Set<String>, downloading: Set<String>) {
        let fm = FileManager.default
        for name in (try? fm.contentsOfDirectory(atPath: models.path)) ?? [] where !keep.contains(name) {
            let stagingOf = name.hasPrefix(".") ? String(name.dropFirst().prefix { $0 != "." }) : nil
            if let stagingOf, downloading.contains(stagingOf) { continue }
            try? fm.removeItem(at: models.appendingPathComponent(name))
        }
    }

    /// Deletes partial downloads of releases other than `downloading` (once a newer model is
    /// installed, an older partial will never be resumed). Best effort, as `collectModels`.
    func collectPartials(except downloading: Set<String>) {
        let fm = FileManager.default
        for name in (try? fm.contentsOfDirectory(atPath: partial.path)) ?? [] {
            let id = String(name.prefix { $0 != "." })
            if !downloading.contains(id) { try? fm.removeItem(at: partial.appendingPathComponent(name)) }
        }
    }
}

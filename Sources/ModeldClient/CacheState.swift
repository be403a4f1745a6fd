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
    /// Launches of `active` since it was installed, while not yet marked good.
    var activations = 0
    var activeIsGood = false
    /// Revalidation of the last dynamic answer: its ETag and identity body.
    var etag: String?
    var lastBody: String?
    /// The highest catalog version a verified answer carried (rollback protection, SPEC §12).
    var highestCatalog: Int64?
    /// Back-off: consecutive failures and the earliest time of the next request.
    var failures = 0
    var notBefore: Date?

    enum CodingKeys: String, CodingKey {
        case clientID = "client_id", active, previous, blocked, activations
        case activeIsGood = "active_is_good", etag, lastBody = "last_body"
        case highestCatalog = "highest_catalog", failures, notBefore = "not_before"
    }
}

/// An installed model: the verified file and the release it came from.
public struct InstalledModel: Sendable, Equatable {
    public let release: Release
    /// The model file (`models/<id>/model.<ext>`).
    public let path: URL
    public var id: String { release.id }
    public var sha256: String { release.sha256 }
    public var size: Int64 { release.size }
}

/// The cache directory's layout and its only writer of `state.json` and `models/`.
///
/// ```
/// state.json   models/<id>/{model.<ext>,release.json}   partial/<id>.{part,json}   events/   lock
/// ```
struct CacheStore {
    let root: URL
    var models: URL { root.appendingPathComponent("models") }
    var partial: URL { root.appendingPathComponent("partial") }
    var events: URL { root.appendingPathComponent("events") }
    private var stateURL: URL { root.appendingPathComponent("state.json") }

    init(root: URL) throws {
        self.root = root
        for dir in [root, root.appendingPathComponent("models"), root.appendingPathComponent("partial"),
                    root.appendingPathComponent("events")] {
            do { try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true) } catch {
                throw ModeldClientError.io("cannot create \(dir.path): \(error.localizedDescription)")
            }
        }
    }

    func loadState(clientID: String?) throws -> CacheState {
        guard let data = try? Data(contentsOf: stateURL) else {
            let state = CacheState(clientID: clientID ?? UUID().uuidString.lowercased())
            try save(state)
            return state
        }
        do {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            var state = try decoder.decode(CacheState.self, from: data)
            if let clientID { state.clientID = clientID }
            return state
        } catch {
            throw ModeldClientError.io("\(stateURL.path) is not a client state file: \(error.localizedDescription)")
        }
    }

    func save(_ state: CacheState) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        try DiskIO.atomicWrite(try encoder.encode(state), to: stateURL)
    }

    func installed(_ id: String) -> InstalledModel? {
        let dir = models.appendingPathComponent(id)
        guard let data = try? Data(contentsOf: dir.appendingPathComponent("release.json")),
              let release = try? JSONDecoder().decode(Release.self, from: data) else { return nil }
        let path = dir.appendingPathComponent("model.\(release.fileExtension)")
        guard FileManager.default.fileExists(atPath: path.path) else { return nil }
        return InstalledModel(release: release, path: path)
    }

    /// Moves a verified file into a staging directory (`models/.<id>.tmp-…/`) with its release.
    func stage(_ file: URL, as release: Release) throws -> URL {
        let staging = models.appendingPathComponent(".\(release.id).tmp-\(UUID().uuidString)")
        do {
            try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: false)
            try DiskIO.moveDurably(file, to: staging.appendingPathComponent("model.\(release.fileExtension)"))
            try DiskIO.atomicWrite(try JSONEncoder().encode(release), to: staging.appendingPathComponent("release.json"))
        } catch {
            try? FileManager.default.removeItem(at: staging)
            throw error
        }
        return staging
    }

    /// Renames a staging directory to `models/<id>/`: a crash leaves either no directory or a
    /// complete one (a half-built one only under its staging name, collected later).
    func commit(_ staging: URL, as release: Release) throws -> InstalledModel {
        let target = models.appendingPathComponent(release.id)
        do {
            if FileManager.default.fileExists(atPath: target.path) { try FileManager.default.removeItem(at: target) }
            try DiskIO.moveDurably(staging, to: target)
        } catch {
            try? FileManager.default.removeItem(at: staging)
            throw error
        }
        return InstalledModel(release: release, path: target.appendingPathComponent("model.\(release.fileExtension)"))
    }

    /// Deletes model directories not in `keep` and staging leftovers of a crash (but not the
    /// staging directory of a download in flight).
    func collectModels(keep: Set<String>, downloading: Set<String>) {
        let fm = FileManager.default
        for name in (try? fm.contentsOfDirectory(atPath: models.path)) ?? [] where !keep.contains(name) {
            let stagingOf = name.hasPrefix(".") ? String(name.dropFirst().prefix { $0 != "." }) : nil
            if let stagingOf, downloading.contains(stagingOf) { continue }
            try? fm.removeItem(at: models.appendingPathComponent(name))
        }
    }

    /// Deletes partial downloads of releases other than `downloading` (once a newer model is
    /// installed, an older partial will never be resumed).
    func collectPartials(except downloading: Set<String>) {
        let fm = FileManager.default
        for name in (try? fm.contentsOfDirectory(atPath: partial.path)) ?? [] {
            let id = String(name.prefix { $0 != "." })
            if !downloading.contains(id) { try? fm.removeItem(at: partial.appendingPathComponent(name)) }
        }
    }
}

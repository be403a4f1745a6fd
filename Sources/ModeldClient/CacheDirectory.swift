import DurableFiles
import Foundation

/// One cache directory shared by every channel (model) of an app (SPEC §13.1):
///
/// ```
/// identity.json                      {"client_id": …}: the install's identity, made once
/// lock                               held only while migrating or creating the identity
/// channels/<channel>/state.json      per-channel state (CacheState)
/// channels/<channel>/lock            held by the one client of that channel
/// channels/<channel>/{models,partial,events}/
/// ```
///
/// A channel is fully separate from the others (its own models, partial downloads and event
/// queue), so clients of different channels — in one process or several — never need each
/// other's locks, and one channel's garbage collection cannot touch another's models.
struct CacheDirectory {
    let root: URL
    var channels: URL { root.appendingPathComponent("channels") }
    private var identityURL: URL { root.appendingPathComponent("identity.json") }
    private var layoutLock: URL { root.appendingPathComponent("lock") }

    func store(_ channel: String) -> CacheStore { CacheStore(root: channels.appendingPathComponent(channel)) }

    /// The channels that have a state file, sorted.
    func channelNames() throws -> [String] {
        guard try DiskIO.exists(channels) else { return [] }
        let names: [String]
        do { names = try FileManager.default.contentsOfDirectory(atPath: channels.path) } catch {
            throw ModeldClientError.io("cannot list \(channels.path): \(error.localizedDescription)")
        }
        return try names.filter { try DiskIO.exists(store($0).stateURL) }.sorted()
    }

    /// Prepares `channel` for a client: migrates a single-channel cache of an earlier version,
    /// makes the install identity once, creates the channel's directories and takes its lock.
    /// - Returns: the channel's store, the install identity and the lock (an open fd).
    func open(channel: String) throws -> (store: CacheStore, identity: String, lock: Int32) {
        try createDirectory(root)
        let identity = try DiskIO.withLock(layoutLock) {
            try migrateSingleChannelLayout(defaultChannel: channel)
            DurableFile.removeStaleTemps(in: root.path, now: Int64(Date().timeIntervalSince1970))   // identity.json's
            return try loadOrCreateIdentity()
        }
        let channelStore = store(channel)
        try channelStore.createDirectories()
        guard let lock = try DiskIO.lockExclusively(channelStore.lockURL) else {
            throw ModeldClientError.cacheInUse("another client uses channel \(channel) of \(root.path)")
        }
        channelStore.removeStaleTemps(now: Int64(Date().timeIntervalSince1970))
        return (channelStore, identity, lock)
    }

    /// Takes the lock of another channel for a management operation; nil while a client holds it.
    func tryLock(_ channel: String) throws -> Int32? { try DiskIO.lockExclusively(store(channel).lockURL) }

    // MARK: Identity

    private func loadOrCreateIdentity() throws -> String {
        if let data = try DiskIO.readIfExists(identityURL) {
            guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],  // any parse failure is the one error below
                  let id = object["client_id"] as? String, !id.isEmpty else {
                throw ModeldClientError.io("\(identityURL.path) is not an identity file (it is kept as it is; move it away to start with a new client id)")
            }
            return id
        }
        return try writeIdentity(UUID().uuidString.lowercased())
    }

    private func writeIdentity(_ id: String) throws -> String {
        let data = try JSONSerialization.data(withJSONObject: ["client_id": id], options: [.sortedKeys])
        try DiskIO.atomicWrite(data, to: identityURL)
        return id
    }

    // MARK: Migration of the single-channel layout (state.json, models/, partial/, events/ at the root)

    /// Moves a cache of the single-channel layout into `channels/<its channel>/`, keeping the
    /// active model, the client id and the highest catalog. Every step is a rename that a rerun
    /// skips once done, and `state.json` moves last: a crash at any point leaves the old layout
    /// (which the next start migrates again) or the new one.
    private func migrateSingleChannelLayout(defaultChannel: String) throws {
        let legacy = root.appendingPathComponent("state.json")
        guard let data = try DiskIO.readIfExists(legacy) else { return }
        let state = try CacheStore.decode(data, from: legacy)
        let channel = try channelOfLegacyModels(state) ?? defaultChannel
        let target = store(channel)
        if try DiskIO.exists(target.stateURL) {
            throw ModeldClientError.io("both \(legacy.path) and \(target.stateURL.path) exist; the cache is left as it is")
        }
        try createDirectory(channels)
        try createDirectory(target.root)
        for name in ["models", "partial", "events"] {
            let from = root.appendingPathComponent(name), to = target.root.appendingPathComponent(name)
            if try DiskIO.exists(from), !(try DiskIO.exists(to)) { try DiskIO.moveDurably(from, to: to) }
        }
        if try DiskIO.readIfExists(identityURL) == nil { _ = try writeIdentity(state.clientID) }
        try DiskIO.moveDurably(legacy, to: target.stateURL)
        try DiskIO.fsyncDirectory(root)
    }

    /// The channel of the legacy cache's models, from the `release.json` of its active (or
    /// newest kept) model, looked up where an interrupted migration may have moved it.
    private func channelOfLegacyModels(_ state: CacheState) throws -> String? {
        let ids = [state.active].compactMap { $0 } + state.previous
        var modelDirectories = [root.appendingPathComponent("models")]
        if try DiskIO.exists(channels) {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: channels.path)) ?? []  // listed just above: a race is the only failure, and then no directory to look in
            modelDirectories += names.map { channels.appendingPathComponent($0).appendingPathComponent("models") }
        }
        for id in ids {
            for directory in modelDirectories {
                let release = directory.appendingPathComponent(id).appendingPathComponent("release.json")
                if let data = try DiskIO.readIfExists(release), let decoded = try? JSONDecoder().decode(ReleaseDocument.self, from: data) {  // an unreadable release.json names no channel: try the next model
                    return ModeldConfiguration.isChannelName(decoded.channel) ? decoded.channel : nil
                }
            }
        }
        return nil
    }

    private func createDirectory(_ url: URL) throws {
        do { try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) } catch {
            throw ModeldClientError.io("cannot create \(url.path): \(error.localizedDescription)")
        }
    }
}

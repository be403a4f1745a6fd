import Foundation

/// A model of the cache as `modeld-client models` lists it (SPEC §13.1): installed models of
/// every channel, and blocked ids (which may no longer be on disk: then no file fields).
public struct CachedModel: Sendable, Equatable {
    public let channel: String
    public let id: String
    public let sha256: String?
    public let size: Int64?
    public let path: URL?
    public let prepared: URL?
    public let active: Bool
    public let blocked: Bool
}

extension ModelChannel {
    /// Every channel's installed models and blocked ids, by channel then id. Other channels are
    /// read without their locks: `state.json` is replaced atomically, and a model another client
    /// collects meanwhile is simply not listed.
    public func installedModels() throws -> [CachedModel] {
        var list: [CachedModel] = []
        for channel in try cache.channelNames() {
            let store = cache.store(channel)
            let state: CacheState
            if channel == configuration.channel { state = self.state } else {
                guard let data = try DiskIO.readIfExists(store.stateURL) else { continue }  // reset or never finished creating
                state = try CacheStore.decode(data, from: store.stateURL)
            }
            let ids = Set([state.active].compactMap { $0 } + state.previous + state.blocked)
            for id in ids.sorted() {
                let model = store.installed(id)
                guard model != nil || state.blocked.contains(id) else { continue }
                list.append(CachedModel(channel: channel, id: id, sha256: model?.sha256, size: model?.size, path: model?.path,
                                        prepared: model?.prepared, active: state.active == id, blocked: state.blocked.contains(id)))
            }
        }
        return list
    }

    /// Deletes an installed model that is not active in its channel (to free space); it is no
    /// longer available for rollback. Refused for the active model and for unknown ids.
    public func delete(_ id: String) throws {
        try editChannel(holding: id) { state, store in
            guard state.active != id else { throw ModeldClientError.refused("\(id) is the active model of its channel; it cannot be deleted") }
            guard state.previous.contains(id) || store.installed(id) != nil else { throw ModeldClientError.refused("\(id) is not installed") }
            state.previous.removeAll { $0 == id }
            try store.save(state)
            try store.remove(id)
        }
    }

    /// Lets a blocked id (reported bad, or rolled back after a crash loop) be installed again.
    public func unblock(_ id: String) throws {
        try editChannel(holding: id) { state, store in
            guard state.blocked.contains(id) else { throw ModeldClientError.refused("\(id) is not blocked") }
            state.blocked.removeAll { $0 == id }
            try store.save(state)
        }
    }

    /// Deletes every channel's installed models and partial downloads; each channel falls back
    /// to its bundled model. Kept: the client id, the highest verified catalog, blocked ids and
    /// queued events. Refused, changing nothing, while another client holds a channel.
    public func resetCache() throws {
        try ensureOpen()
        var locks: [Int32] = []
        defer { locks.forEach(DiskIO.closeFile) }
        let others = try cache.channelNames().filter { $0 != configuration.channel }
        for channel in others {
            guard let fd = try cache.tryLock(channel) else { throw ModeldClientError.cacheInUse("another client uses channel \(channel)") }
            locks.append(fd)
        }
        for channel in others {
            let store = cache.store(channel)
            guard var state = try DiskIO.readIfExists(store.stateURL).map({ try CacheStore.decode($0, from: store.stateURL) }) else { continue }
            try Self.reset(&state, store: store, downloading: [])
        }
        try Self.reset(&state, store: store, downloading: Set(downloadsInFlight.keys))
    }

    /// This channel's installed models and partial downloads are deleted; it falls back to its
    /// bundled model (``ModelCache/delete(named:)``).
    func resetChannel() throws {
        try ensureOpen()
        try Self.reset(&state, store: store, downloading: Set(downloadsInFlight.keys))
    }

    /// Bytes of every file under the cache directory (all channels).
    public func bytesUsed() -> Int64 {
        guard let walker = FileManager.default.enumerator(at: cache.root, includingPropertiesForKeys: [.fileSizeKey, .isRegularFileKey]) else { return 0 }
        var total: Int64 = 0
        for case let url as URL in walker {
            // A file removed while we walk has no size to count.
            guard let values = try? url.resourceValues(forKeys: [.fileSizeKey, .isRegularFileKey]), values.isRegularFile == true else { continue }
            total += Int64(values.fileSize ?? 0)
        }
        return total
    }

    /// The server answers the bundled release while an installed model is active (an operator
    /// went back to it): the bundled file becomes active again, nothing is downloaded.
    func activateBundled() throws -> InstalledModel {
        let bundled = configuration.bundledModel!
        if let old = state.active {
            state.previous.removeAll { $0 == old }
            state.previous = Array(([old] + state.previous).prefix(configuration.keepPrevious))
        }
        state.active = nil
        state.launchHealth.apply(.markedGood)  // shipped with the app: nothing to roll back to
        try store.save(state)
        // Activation is saved; failing to queue its telemetry must not undo it.
        try? events.record(OutcomeEvent(name: "model_activated", modelID: bundled.id, outcome: "activated"))
        store.collectModels(keep: Set(state.previous), downloading: [])
        return bundled.installed(channel: configuration.channel, sdkVersion: configuration.sdkVersion)
    }

    /// A verified archive that cannot be unpacked safely: its id is blocked (``unblock(_:)``
    /// undoes it) and a `model_rejected` event says why.
    func refuseArchive(_ id: String, reason: String) throws {
        if !state.blocked.contains(id) { state.blocked.append(id) }
        try store.save(state)
        try events.record(OutcomeEvent(name: "model_rejected", modelID: id, outcome: "archive_refused"))
    }

    private static func reset(_ state: inout CacheState, store: CacheStore, downloading: Set<String>) throws {
        state.active = nil
        state.previous = []
        state.launchHealth.apply(.installed)
        state.etag = nil
        state.lastBody = nil
        try store.save(state)
        store.collectModels(keep: [], downloading: downloading)
        store.collectPartials(except: downloading)
    }

    /// Runs `edit` on the state of the channel whose models include `id`: this client's own, or
    /// another one under that channel's lock.
    private func editChannel(holding id: String, _ edit: (inout CacheState, CacheStore) throws -> Void) throws {
        try ensureOpen()
        let mentions = { (s: CacheState) in s.active == id || s.previous.contains(id) || s.blocked.contains(id) }
        if mentions(state) { return try edit(&state, store) }
        for channel in try cache.channelNames() where channel != configuration.channel {
            let store = cache.store(channel)
            guard let data = try DiskIO.readIfExists(store.stateURL), mentions(try CacheStore.decode(data, from: store.stateURL)) else { continue }
            guard let fd = try cache.tryLock(channel) else { throw ModeldClientError.cacheInUse("another client uses channel \(channel)") }
            defer { DiskIO.closeFile(fd) }
            // Read again under the lock: the holder may have changed it since.
            guard let locked = try DiskIO.readIfExists(store.stateURL) else { continue }
            var other = try CacheStore.decode(locked, from: store.stateURL)
            return try edit(&other, store)
        }
        throw ModeldClientError.refused("no channel of this cache has a model \(id)")
    }
}

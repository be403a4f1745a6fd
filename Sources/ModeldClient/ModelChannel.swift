import Foundation
import ReleaseSelection

/// The client side of modeld for apps (SPEC §13): checks for a newer model, downloads it with
/// resume, verifies it, installs it atomically and keeps a durable queue of outcome events.
///
/// One `ModelChannel` owns its cache directory (an exclusive lock: a second process gets
/// ``ModeldClientError/cacheInUse(_:)``). Concurrent callers of ``check()`` and ``update()``
/// share one request and one download.
///
/// ```swift
/// let client = try ModelChannel(ModeldConfiguration(
///     source: .server(URL(string: "https://models.example.com")!), sdkVersion: "2.3",
///     cacheDirectory: cacheURL, trustedKeys: [try TrustedPublicKey(pubFileContents: pub)]))
/// let model = try await client.update().active   // nil: use the bundled model
/// ```
public actor ModelChannel {
    public nonisolated let configuration: ModeldConfiguration
    let sdk: SDKVersion
    let cache: CacheDirectory
    let store: CacheStore
    let events: EventQueue
    /// Shared with the other channels of a ``ModelCache``; this object's own otherwise.
    let transports: ChannelTransports
    var transport: any HTTPTransport { transports.control }
    /// This object's claim on the cache (``OpenCaches``) when it was opened alone; nil when a
    /// ``ModelCache`` opened it (the cache holds the claim and the transports).
    let registration: String?
    let progress = ProgressBroadcaster()
    let verifier: any MetadataVerifier
    /// Rules mode's pointer, snapshot and decoded rules, kept across checks (nil in other modes).
    let rules: RulesSource?
    let lock: Int32
    var state: CacheState
    /// This process's launch of the active model (the crash-loop rule, ``LaunchLifecycle``).
    var lifecycle = LaunchLifecycle()
    #if canImport(Darwin)
    /// The app's lifecycle notifications, from the first `launchModel()` on.
    var lifecycleObserver: AppLifecycleObserver?
    #endif
    var closed = false
    /// A group commit of recorded events is pending (``scheduleEventSync()``).
    var eventSyncScheduled = false
    var checkInFlight: SharedFlight<CheckResult>?
    var updateInFlight: SharedFlight<UpdateResult>?
    var downloadsInFlight: [String: SharedFlight<InstalledModel>] = [:]
    /// What the last install of each release fetched, and how (`update --json`'s `bytes_fetched`).
    var fetches: [String: (bytes: Int64, method: FetchMethod)] = [:]
    /// The server's `Retry-After` header of the failure being handled.
    var retryAfter: String?

    /// Opens (or creates) the cache and this channel's part of it, and rolls back a model whose
    /// launches crash-looped (``CrashLoopRule``). For an app with one model; with several, one
    /// ``ModelCache`` serves them all. A second object for the same cache in this process is
    /// refused (``ModeldClientError/cacheInUse(_:)``).
    public init(_ configuration: ModeldConfiguration) throws {
        let registration = try OpenCaches.claim(configuration.cacheDirectory)
        do { try self.init(configuration, transports: ChannelTransports(configuration), registration: registration) } catch {
            OpenCaches.release(registration)
            throw error
        }
    }

    /// A channel of a ``ModelCache`` (`registration` nil), or of its own (claimed by the caller).
    init(_ configuration: ModeldConfiguration, transports: ChannelTransports, registration: String?) throws {
        sdk = try configuration.validate()
        verifier = try configuration.makeVerifier()
        self.configuration = configuration
        self.transports = transports
        self.registration = registration
        cache = CacheDirectory(root: configuration.cacheDirectory)
        let opened = try cache.open(channel: configuration.channel)
        BackupExclusion.exclude(configuration.cacheDirectory)
        store = opened.store
        self.lock = opened.lock
        events = EventQueue(directory: store.events, limit: configuration.maxQueuedEvents)
        if case .rules(let base) = configuration.source {
            rules = RulesSource(base: base, rules: RulesVerifier(channel: configuration.channel, verifier: verifier), transport: transports.control,
                                cacheFile: store.root.appendingPathComponent("rules").appendingPathComponent("\(configuration.channel).json"))
        } else {
            rules = nil
        }
        do {
            state = try store.loadState(clientID: configuration.clientID ?? opened.identity, configured: configuration.clientID != nil)
            if let active = state.active, state.launchHealth.shouldRollBack(configuration.crashLoop) {
                try Self.rollBack(active, reason: "crash_loop", state: &state, store: store, events: events,
                                  keepPrevious: configuration.keepPrevious, bundled: configuration.bundledModel)
            }
            // A crash between the install's rename and state.json leaves an unreferenced directory.
            store.collectModels(keep: Set([state.active].compactMap { $0 } + state.previous), downloading: [])
        } catch {
            DiskIO.closeFile(opened.lock)
            throw error
        }
    }

    /// Releasing the client without ``close()`` is a clean end too.
    deinit {
        guard !closed else { return }
        if let next = lifecycle.handle(.endedCleanly, health: state.launchHealth) {
            var ended = state
            ended.launchHealth = next
            try? store.save(ended)  // as in enteredBackground: unwritable leaves the launch counted
        }
        DiskIO.closeFile(lock)
        if let registration {
            transports.invalidate()
            OpenCaches.release(registration)
        }
    }

    /// The install's identity (configured, or created once and kept in the cache).
    public var clientID: String { state.clientID }

    /// The model in use, from disk only (nil = the app's bundled base model). An adapter whose
    /// base channel has since activated another model is inactive (SPEC §3.2): it would run on
    /// the wrong base; the next check reports the new base and installs the adapter for it.
    public func activeModel() -> InstalledModel? {
        if let installed = state.active.flatMap(store.installed) {
            return isOnCurrentBase(installed) ? installed : nil
        }
        return configuration.bundledModel?.installed(channel: configuration.channel, sdkVersion: configuration.sdkVersion)
    }

    /// False only when the model names a base and that channel of the cache has an active model
    /// with another SHA-256 (a base the cache does not hold, e.g. a bundled one, is trusted).
    func isOnCurrentBase(_ model: InstalledModel) -> Bool {
        guard let base = model.base, base.channel != configuration.channel,
              let current = installedBases().installed[base.channel] else { return true }
        return current == base.sha256
    }

    /// SPEC §3.2: adapters go with their base. A model of this channel that names a base is
    /// deleted once that channel of the cache holds (active or previous) no model with its
    /// SHA-256 any more. Run at this channel's own update, under its own lock: each channel
    /// edits only its own state, and the base channel's state is only read (a base channel this
    /// cache never installed, or a bundled base, is trusted as in ``isOnCurrentBase(_:)``).
    func collectAdaptersOfGoneBases() throws {
        var held: [String: Set<String>] = [:]
        for model in (try? installedModels()) ?? [] where model.channel != configuration.channel && !model.blocked {
            if let sha = model.sha256 { held[model.channel, default: []].insert(sha) }
        }
        let gone = Set(([state.active].compactMap { $0 } + state.previous).filter { id in
            guard let base = store.installed(id)?.base, base.channel != configuration.channel,
                  let shas = held[base.channel] else { return false }
            return !shas.contains(base.sha256)
        })
        guard !gone.isEmpty else { return }
        if let active = state.active, gone.contains(active) { state.active = nil }
        state.previous.removeAll { gone.contains($0) }
        try store.save(state)
        store.collectModels(keep: Set([state.active].compactMap { $0 } + state.previous), downloading: Set(downloadsInFlight.keys))
    }

    /// Rules snapshots decoded by this client: once per verified snapshot, not once per check.
    var rulesSnapshotDecodes: Int { rules?.snapshotDecodes ?? 0 }

    /// The highest catalog version a verified answer carried.
    public var highestCatalog: Int64? { state.highestCatalog }

    /// When the app should call ``update()`` next: after a back-off, or the jittered poll interval.
    public func nextCheckDate() -> Date {
        state.notBefore ?? Date().addingTimeInterval(Backoff.nextPoll(interval: configuration.pollInterval) { .random(in: $0) })
    }
}

import ContentDigest
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
    private let sdk: SDKVersion
    let cache: CacheDirectory
    let store: CacheStore
    let events: EventQueue
    /// Shared with the other channels of a ``ModelCache``; this object's own otherwise.
    private let transports: ChannelTransports
    private var transport: any HTTPTransport { transports.control }
    /// This object's claim on the cache (``OpenCaches``) when it was opened alone; nil when a
    /// ``ModelCache`` opened it (the cache holds the claim and the transports).
    private let registration: String?
    private let progress = ProgressBroadcaster()
    private let verifier: any MetadataVerifier
    /// Rules mode's pointer, snapshot and decoded rules, kept across checks (nil in other modes).
    private let rules: RulesSource?
    private let lock: Int32
    var state: CacheState
    /// This process's launch of the active model (the crash-loop rule, ``LaunchLifecycle``).
    private var lifecycle = LaunchLifecycle()
    #if canImport(Darwin)
    /// The app's lifecycle notifications, from the first `launchModel()` on.
    private var lifecycleObserver: AppLifecycleObserver?
    #endif
    private var closed = false
    private var checkInFlight: SharedFlight<CheckResult>?
    private var updateInFlight: SharedFlight<UpdateResult>?
    var downloadsInFlight: [String: SharedFlight<InstalledModel>] = [:]
    /// What the last install of each release fetched, and how (`update --json`'s `bytes_fetched`).
    private var fetches: [String: (bytes: Int64, method: FetchMethod)] = [:]
    /// The server's `Retry-After` header of the failure being handled.
    private var retryAfter: String?

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

    /// The model in use, from disk only (nil = the app's bundled base model).
    public func activeModel() -> InstalledModel? {
        state.active.flatMap(store.installed) ?? configuration.bundledModel?.installed(channel: configuration.channel, sdkVersion: configuration.sdkVersion)
    }

    /// Rules snapshots decoded by this client: once per verified snapshot, not once per check.
    var rulesSnapshotDecodes: Int { rules?.snapshotDecodes ?? 0 }

    /// The highest catalog version a verified answer carried.
    public var highestCatalog: Int64? { state.highestCatalog }

    /// When the app should call ``update()`` next: after a back-off, or the jittered poll interval.
    public func nextCheckDate() -> Date {
        state.notBefore ?? Date().addingTimeInterval(Backoff.nextPoll(interval: configuration.pollInterval) { .random(in: $0) })
    }

    // MARK: Checking and updating

    /// Asks the server (or static host) for the release this install should run and verifies
    /// the answer. Queued events ride along (`POST /latest`); otherwise the stored ETag is
    /// revalidated (`304`). Throws ``ModeldClientError/deferred(until:)`` while backing off
    /// (a `userInitiated` check skips the stored back-off, ``UpdateTrigger``).
    public func check(_ trigger: UpdateTrigger = .scheduled) async throws -> CheckResult {
        if let inFlight = checkInFlight { return try await inFlight.value() }
        let flight = SharedFlight { try await self.performCheck(trigger) }
        checkInFlight = flight
        defer { checkInFlight = nil }
        return try await flight.value()
    }

    /// ``check()``, then download, verify and install what it found; the new model becomes the
    /// active one and a `model_activated` event is queued. `progress` sees its phases
    /// (``UpdatePhase``); cancelling the calling task stops the transfer and keeps the partial
    /// file for the next update to resume. `.userInitiated` skips a stored back-off.
    public func update(_ trigger: UpdateTrigger = .scheduled,
                       progress observer: (@Sendable (UpdatePhase) -> Void)? = nil) async throws -> UpdateResult {
        if updateInFlight == nil { progress.reset() }
        let token = observer.map(progress.add)
        defer { token.map(progress.remove) }
        if let inFlight = updateInFlight { return try await inFlight.value() }
        let flight = SharedFlight { try await self.performUpdate(trigger) }
        updateInFlight = flight
        defer { updateInFlight = nil }
        return try await flight.value()
    }

    /// Downloads and installs `release` (one download per release id however many callers).
    public func download(_ release: Release) async throws -> InstalledModel {
        if let inFlight = downloadsInFlight[release.id] { return try await inFlight.value() }
        let flight = SharedFlight { try await self.performDownload(release) }
        downloadsInFlight[release.id] = flight
        defer { downloadsInFlight[release.id] = nil }
        return try await flight.value()
    }

    private func performUpdate(_ trigger: UpdateTrigger) async throws -> UpdateResult {
        progress.report(.checking)
        do {
            let result = try await checkAndInstall(trigger)
            progress.report(.installed)
            return result
        } catch {
            progress.report(.failed(error is CancellationError ? "cancelled" : "\(error)"))
            throw error
        }
    }

    private func checkAndInstall(_ trigger: UpdateTrigger) async throws -> UpdateResult {
        let found = try await check(trigger)
        switch found.status {
        case .noModel: return UpdateResult(status: .noModel, active: activeModel(), catalog: found.catalog)
        case .upToDate: return UpdateResult(status: .upToDate, active: activeModel(), catalog: found.catalog)
        case .available where !configuration.conditions.admits(found.release!):
            return UpdateResult(status: .available, active: activeModel(), catalog: found.catalog)
        case .available:
            let model: InstalledModel
            do { model = try await download(found.release!) } catch is HeldBackByConditions {
                // The network is one the app excluded: the release waits, and nothing failed (SPEC §13.2).
                return UpdateResult(status: .available, active: activeModel(), catalog: found.catalog)
            }
            let fetch = fetches[model.id]
            return UpdateResult(status: .updated, active: model, catalog: found.catalog, bytesFetched: fetch?.bytes ?? 0, method: fetch?.method)
        }
    }

    private func performDownload(_ release: Release) async throws -> InstalledModel {
        try ensureOpen()
        try release.validate()
        if let bundled = configuration.bundledModel, bundled.id == release.id, bundled.sha256 == release.sha256 {
            return try activateBundled()
        }
        let sources = store.deltaSources([state.active].compactMap { $0 } + state.previous)
        let fetched = try await ModelFetcher(transport: transports.modelBytes, wholeFileTransport: transports.wholeFiles, directory: store.partial,
                                       progress: progress)
            .fetch(release, sources: sources)
        progress.report(.preparing)
        configuration.afterInstallStep?(.downloaded)
        let staging = try store.stage(fetched.file, as: release)
        if let list = fetched.chunkList { try store.keepChunkList(list, in: staging) }
        configuration.afterInstallStep?(.staged)
        if ModelUnpacker.needsUnpacking(release) {
            do {
                try ModelUnpacker.unpack(staging.appendingPathComponent("model.\(release.fileExtension)"), into: staging) {
                    configuration.afterInstallStep?(.unpacking)
                }
            } catch {
                try? FileManager.default.removeItem(at: staging)  // a staging leftover is collected at the next start anyway
                // The signed, immutable file itself is bad: block it rather than fetch it at every check.
                if case ModeldClientError.verification(let reason) = error { try refuseArchive(release.id, reason: reason) }
                throw error
            }
        }
        do {
            if let preparer = configuration.preparer {
                try await preparer.prepare(model: staging.appendingPathComponent("model.\(release.fileExtension)"), into: staging)
            } else {
                try await CoreMLPreparation.prepare(release, staging: staging)
            }
        } catch {
            try? FileManager.default.removeItem(at: staging)  // a staging leftover is collected at the next start anyway
            throw ModeldClientError.io("preparing model \(release.id): \(error)")
        }
        let model = try store.commit(staging, as: release)
        configuration.afterInstallStep?(.committed)
        if let old = state.active, old != release.id { state.previous.insert(old, at: 0) }
        state.previous.removeAll { $0 == release.id }
        state.previous = Array(state.previous.prefix(configuration.keepPrevious))
        state.active = release.id
        state.launchHealth.apply(.installed)
        try store.save(state)
        configuration.afterInstallStep?(.activated)
        fetches[release.id] = (fetched.bytesFetched, fetched.method)
        // The model is installed and active; an event queue that cannot take the activation
        // event must not undo that (the event is telemetry, the install is the contract).
        try? events.record(OutcomeEvent(name: "model_activated", modelID: release.id, outcome: "activated", props: [
            "bytes_fetched": .number(Double(fetched.bytesFetched)), "method": .string(fetched.method.rawValue),
        ]))
        store.collectModels(keep: Set([release.id] + state.previous), downloading: Set(downloadsInFlight.keys))
        store.collectPartials(except: Set(downloadsInFlight.keys).subtracting([release.id]))
        return model
    }

    private func performCheck(_ trigger: UpdateTrigger) async throws -> CheckResult {
        try ensureOpen()
        let now = Date()
        if let until = Backoff.deferral(notBefore: state.notBefore, retryAfter: state.retryAfter, trigger: trigger, now: now) {
            throw ModeldClientError.deferred(until: until)
        }
        retryAfter = nil
        do {
            let result: CheckResult
            switch configuration.source {
            case .server(let base): result = try await checkServer(base, now: now, sendEvents: true)
            case .staticFile(let url): result = try await checkStatic(url, now: now)
            case .rules: result = try await checkRules(rules!, now: now)   // set by init in rules mode
            }
            state.failures = 0
            state.notBefore = nil
            state.retryAfter = nil
            try store.save(state)
            return result
        } catch let error as ModeldClientError where Backoff.advances(error) {
            state.failures += 1
            // From when the failure arrived, not when the check began: Retry-After counts
            // from the response (RFC 9110 §10.2.3), however long the request took.
            let failedAt = Date()
            let hint = Backoff.retryAfter(retryAfter, now: failedAt)
            let delay = Backoff(base: configuration.backoffBase, cap: configuration.backoffCap)
                .delay(failures: state.failures, retryAfter: hint) { .random(in: $0) }
            state.notBefore = failedAt.addingTimeInterval(delay)
            state.retryAfter = hint.map { RetryAfterRecord(received: failedAt, until: failedAt.addingTimeInterval($0)) }
            try? store.save(state)  // the check's own error is reported; the back-off then lasts this process only
            throw error
        }
    }

    private func checkServer(_ base: URL, now: Date, sendEvents: Bool) async throws -> CheckResult {
        var query = [URLQueryItem(name: "sdk", value: configuration.sdkVersion),
                     URLQueryItem(name: "channel", value: configuration.channel)]
        query.append(URLQueryItem(name: "client_id", value: state.clientID))
        query += configuration.deviceAttributes.queryItems
        var request = HTTPRequest(url: Self.url(base, path: "latest", query: query))
        let batch = sendEvents ? try events.pending().first : nil
        if let batch {
            request.method = "POST"
            request.headers["Content-Type"] = "application/json"
            request.body = EventQueue.body(batch, clientID: state.clientID)
        } else if let etag = state.etag, state.lastBody != nil {
            request.headers["If-None-Match"] = etag
        }
        let answer = try await transport.send(request)
        if let batch, try settle(batch, answer), answer.status == 400 || answer.status == 413 {
            return try await checkServer(base, now: now, sendEvents: false)  // the batch was the problem
        }
        switch answer.status {
        case 200:
            let result = try verify(answer, body: answer.body, now: now)
            if batch == nil, let etag = answer.header("ETag") {
                state.etag = etag
                state.lastBody = String(decoding: answer.body, as: UTF8.self)
            }
            return result
        case 304:
            guard let body = state.lastBody else { throw ModeldClientError.network("304 without a stored answer") }
            return try verify(answer, body: Array(body.utf8), now: now)
        case 404 where answer.errorCode == "no_model":
            state.etag = nil
            state.lastBody = nil
            return CheckResult(status: .noModel, release: nil, catalog: nil)
        default:
            retryAfter = answer.header("Retry-After")
            throw answer.asError()
        }
    }

    /// Static mode: the signed pointer names an immutable snapshot; its greatest key ≤ our SDK
    /// version holds our release (SPEC §2, §12).
    private func checkStatic(_ location: URL, now: Date) async throws -> CheckResult {
        let pointerURL = location.lastPathComponent.hasSuffix(".sig.json") ? location
            : location.appendingPathComponent("latest_model_details.sig.json")
        let pointerAnswer = try await transport.send(HTTPRequest(url: pointerURL))
        guard pointerAnswer.status == 200 else {
            retryAfter = pointerAnswer.header("Retry-After")
            throw pointerAnswer.asError()
        }
        let pointer = try verifier.verifyPointer(pointerAnswer.body, now: now)
        guard pointer.kind == .details else { throw ModeldClientError.verification("\(pointerURL.lastPathComponent) is not a details pointer") }
        let catalog = verifier.acceptsUnsigned ? nil : pointer.catalog
        try ratchet(catalog)
        guard let snapshotURL = URL(string: pointer.file, relativeTo: pointerURL) else {
            throw ModeldClientError.verification("pointer names a bad file '\(pointer.file)'")
        }
        let snapshot = try await transport.send(HTTPRequest(url: snapshotURL))
        guard snapshot.status == 200 else {
            retryAfter = snapshot.header("Retry-After")
            throw snapshot.asError()  // a pointer whose file is missing means "later", never "no model"
        }
        guard snapshot.body.count == pointer.size, SHA256Hex.of(snapshot.body) == pointer.sha256 else {
            throw ModeldClientError.verification("\(pointer.file) does not match the size and sha256 of the pointer")
        }
        guard let object = try? JSONSerialization.jsonObject(with: Data(snapshot.body)) as? [String: Any] else {  // any parse failure is this one error
            throw ModeldClientError.verification("\(pointer.file) is not a JSON object")
        }
        let key = object.keys.compactMap { k in SDKVersion(k).map { (k, $0) } }.filter { $0.1 <= sdk }.max { $0.1 < $1.1 }
        guard let key, let entry = object[key.0] as? [String: Any] else {
            return CheckResult(status: .noModel, release: nil, catalog: catalog)
        }
        let release = try decodeRelease(try JSONSerialization.data(withJSONObject: entry))
        try commit(catalog)
        return decide(release, catalog: catalog)
    }

    /// Rules mode (SPEC §9.2): the channel's verified rules, evaluated here with the server's
    /// selection for this install; queued events go to the events URL when one is configured.
    private func checkRules(_ source: RulesSource, now: Date) async throws -> CheckResult {
        let outcome: RulesVerifier.Outcome
        do { outcome = try await source.fetch(now: now) } catch let failure as RulesSource.Failure {
            retryAfter = failure.retryAfter
            throw failure.error
        }
        if configuration.events != nil { _ = try? await flushEvents() }   // best effort: they stay queued
        guard let answer = outcome.snapshot.answer(sdk: sdk, clientID: state.clientID, device: configuration.deviceAttributes) else {
            return CheckResult(status: .noModel, release: nil, catalog: outcome.catalog)
        }
        let release = Release(answer)
        try release.validate()
        return decide(release, catalog: outcome.catalog)
    }

    private func verify(_ answer: HTTPAnswer, body: [UInt8], now: Date) throws -> CheckResult {
        let signed = SignedAnswer(paramsHeader: answer.header("Modeld-Signature-Params"),
                                  signatureHeader: answer.header("Modeld-Signature"), body: body)
        let catalog = try verifier.verifyLatest(signed, now: now)
        try ratchet(catalog)
        let release = try decodeRelease(Data(body))
        try commit(catalog)
        return decide(release, catalog: catalog)
    }

    /// Rollback protection: a verified catalog version never goes down.
    private func ratchet(_ catalog: Int64?) throws {
        if let catalog, let highest = state.highestCatalog, catalog < highest {
            throw ModeldClientError.verification("catalog version \(catalog) is older than \(highest), already seen")
        }
    }

    private func commit(_ catalog: Int64?) throws {
        if let catalog { state.highestCatalog = max(catalog, state.highestCatalog ?? catalog) }
    }

    private func decodeRelease(_ data: Data) throws -> Release {
        let release: Release
        do { release = try JSONDecoder().decode(Release.self, from: data) } catch {
            throw ModeldClientError.verification("the answer is not a release document")
        }
        try release.validate()
        guard release.channel == configuration.channel else {
            throw ModeldClientError.verification("release \(release.id) is for channel \(release.channel), not \(configuration.channel)")
        }
        guard sdk.admits(release) else {
            throw ModeldClientError.verification("release \(release.id) is for SDK [\(release.sdkMin), \(release.sdkMax ?? "∞")), not \(sdk)")
        }
        return release
    }

    private func decide(_ release: Release, catalog: Int64?) -> CheckResult {
        let current = release.id == (state.active ?? configuration.bundledModel?.id) || state.blocked.contains(release.id)
        return CheckResult(status: current ? .upToDate : .available, release: release, catalog: catalog)
    }

    // MARK: Launch health

    /// The model the app should load at this launch. The first call of the process counts a
    /// launch of a not-yet-good model, which becomes healthy at ``markGood(_:)``, when the app
    /// reaches the background (observed by the client on Apple platforms) or at a clean end
    /// (``close()``, the client released); launches that end in none of these, in a row, roll
    /// the model back when the next `ModelChannel` opens this channel (docs/client.md,
    /// "Rollback rule").
    public func launchModel() throws -> InstalledModel? {
        try ensureOpen()
        guard let model = activeModel() else { return nil }
        if state.active != nil, !lifecycle.counted {
            #if canImport(Darwin)
            if lifecycleObserver == nil { lifecycleObserver = AppLifecycleObserver(client: self) }
            #endif
            try signal(.modelLoaded)
        }
        return model
    }

    /// Applies one lifecycle signal of this process to the stored launch health.
    func signal(_ signal: LaunchLifecycle.Signal) throws {
        guard let next = lifecycle.handle(signal, health: state.launchHealth) else { return }
        state.launchHealth = next
        try store.save(state)
    }

    /// The app reached the background (Apple lifecycle notifications, or the app's own call
    /// where it has no UIKit lifecycle): the launch is healthy, and queued events are made durable.
    public func enteredBackground() {
        try? signal(.backgrounded)  // state.json unwritable: the launch stays counted, the safe side
    }

    /// Ends this client cleanly: the launch counts as healthy and the channel's lock is released
    /// (another object may open the cache). Calls after this fail with ``ModeldClientError/closed``.
    public func close() {
        guard !closed else { return }
        closed = true
        try? signal(.endedCleanly)  // as in enteredBackground
        #if canImport(Darwin)
        lifecycleObserver = nil
        #endif
        DiskIO.closeFile(lock)
        if let registration {
            transports.invalidate()
            OpenCaches.release(registration)
        }
    }

    /// Refuses work on a closed client: its lock is released, so another may own the cache.
    func ensureOpen() throws {
        if closed { throw ModeldClientError.refused("this client was closed; open a new one") }
    }

    /// The app used the model successfully: it is trusted from now on.
    public func markGood(_ modelID: String) throws {
        try ensureOpen()
        guard state.active == modelID, !state.activeIsGood else { return }
        state.launchHealth.apply(.markedGood)
        try store.save(state)
    }

    /// The model misbehaves: block its id for good, fall back to the previous model (or the
    /// bundled one) and queue a `model_rejected` event. Returns the model now in use.
    @discardableResult
    public func reportBad(_ modelID: String, reason: String = "reported_bad") throws -> InstalledModel? {
        try ensureOpen()
        try Self.rollBack(modelID, reason: reason, state: &state, store: store, events: events,
                          keepPrevious: configuration.keepPrevious, bundled: configuration.bundledModel)
        return activeModel()
    }

    private static func rollBack(_ id: String, reason: String, state: inout CacheState, store: CacheStore,
                                 events: EventQueue, keepPrevious: Int, bundled: BundledModel?) throws {
        if !state.blocked.contains(id) { state.blocked.append(id) }
        state.previous.removeAll { $0 == id }
        let wasActive = state.active == id || (state.active == nil && bundled?.id == id)
        if state.active == id {
            state.active = state.previous.first { store.installed($0) != nil }
            state.previous = Array(state.previous.drop { $0 != state.active }.dropFirst())
            state.launchHealth.apply(.markedGood)  // it ran before the bad model arrived
        }
        try store.save(state)
        try events.record(OutcomeEvent(name: "model_rejected", modelID: id, outcome: String(reason.prefix(64))))
        if wasActive, let now = state.active ?? bundled.flatMap({ $0.id == id ? nil : $0.id }) {
            // The rollback is done and saved; failing to queue its telemetry must not undo it.
            try? events.record(OutcomeEvent(name: "model_activated", modelID: now, outcome: "activated"))
        }
        store.collectModels(keep: Set([state.active].compactMap { $0 } + state.previous), downloading: [])
    }

    // MARK: Events

    /// Appends `event` durably to the local queue; it goes out with the next check or flush.
    public func record(_ event: OutcomeEvent) throws {
        try ensureOpen()
        try events.record(event)
    }

    /// Events dropped because the queue was full (oldest whole batches first, SPEC §9.2).
    public func droppedEventCount() -> Int { events.droppedEventCount() }

    /// Events recorded and not yet acknowledged by the server.
    public func pendingEventCount() -> Int { events.pendingEventCount() }

    /// Sends every queued batch now (`POST /events`), oldest first; stops at the first failure.
    public func flushEvents() async throws -> FlushResult {
        try ensureOpen()
        guard let base = configuration.eventsBase else {
            throw ModeldClientError.invalidConfiguration("no events URL configured; events stay queued")
        }
        var result = FlushResult()
        let url = Self.url(base, path: "events", query: [URLQueryItem(name: "sdk", value: configuration.sdkVersion)])
        for batch in try events.pending() {
            var request = HTTPRequest(url: url)
            request.method = "POST"
            request.headers["Content-Type"] = "application/json"
            request.body = EventQueue.body(batch, clientID: state.clientID)
            let answer = try await transport.send(request)
            let quarantined = answer.status == 400
            guard try settle(batch, answer) else { throw answer.asError() }
            if answer.status == 200 { result.sent += batch.lines.count }
            if quarantined { result.quarantined += batch.lines.count }
        }
        result.remaining = events.pendingEventCount()
        return result
    }

    /// Applies the server's verdict on a batch; false when it stays queued for a retry.
    private func settle(_ batch: EventQueue.Batch, _ answer: HTTPAnswer) throws -> Bool {
        switch (answer.status, answer.errorCode) {
        case (200, _), (404, "no_model"):
            try events.acknowledge(batch)
        case (400, "invalid_event"), (400, "invalid_batch"), (400, "invalid_json"):
            try events.quarantine(batch)
        case (413, _):
            try events.split(batch)
        default:
            return false
        }
        return true
    }

    /// `+` is escaped too: URLComponents leaves it literal, and modeld (like every form decoder)
    /// reads a literal `+` as a space, so a client id `a+b` would be bucketed as `a b`.
    static func url(_ base: URL, path: String, query: [URLQueryItem]) -> URL {
        var components = URLComponents(url: base.appendingPathComponent(path), resolvingAgainstBaseURL: false)!
        components.queryItems = query
        components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        return components.url!
    }
}

import Foundation

// Launch health (SPEC §13.2): the crash-loop rule, markGood, reportBad, the clean end.

extension ModelChannel {
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
        try? events.sync()  // the group commit's own schedule retries a failure
    }

    /// Ends this client cleanly: the launch counts as healthy and the channel's lock is released
    /// (another object may open the cache). Calls after this fail with ``ModeldClientError/closed``.
    public func close() {
        guard !closed else { return }
        closed = true
        try? signal(.endedCleanly)  // as in enteredBackground
        try? events.sync()
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

    static func rollBack(_ id: String, reason: String, state: inout CacheState, store: CacheStore,
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
}

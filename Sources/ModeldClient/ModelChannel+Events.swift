import Foundation

// Outcome events (SPEC §5, §13): the durable queue and its upload.

extension ModelChannel {
    /// Appends `event` to the local queue; it goes out with the next check or flush. Amortised
    /// O(1): it survives a crash of the process at once, and a power loss within 1 s (events are
    /// made durable in groups, and at background and close; SPEC §13.2).
    public func record(_ event: OutcomeEvent) throws {
        try ensureOpen()
        try events.record(event)
        scheduleEventSync()
    }

    /// A group still waiting for its fsync gets one within `groupCommit`, however few events follow.
    func scheduleEventSync() {
        guard events.isDirty, !eventSyncScheduled else { return }
        eventSyncScheduled = true
        // Detached and weak: a task isolated to this actor would keep the channel (and its lock) alive.
        Task.detached { [weak self] in
            try? await Task.sleep(for: EventQueue.groupCommit)  // nobody cancels it
            await self?.syncEvents()
        }
    }

    private func syncEvents() {
        eventSyncScheduled = false
        try? events.syncIfDue()  // an fsync that fails is retried by the next group; the events are written
        scheduleEventSync()
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
    func settle(_ batch: EventQueue.Batch, _ answer: HTTPAnswer) throws -> Bool {
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

import ContentDigest
import Foundation
import ReleaseSelection

// Update checks (SPEC §4, §9, §12): the server, a static host or rules; verification, the
// catalog ratchet and the back-off.

extension ModelChannel {
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

    func performCheck(_ trigger: UpdateTrigger) async throws -> CheckResult {
        try ensureOpen()
        let now = Date()
        try checkDeferral(trigger, now: now)
        return try await recordingBackoff {
            switch configuration.source {
            case .server(let base): try await checkServer(base, now: now, sendEvents: true)
            case .staticFile(let url): try await checkStatic(url, now: now)
            case .rules: try await checkRules(rules!, now: now)   // set by init in rules mode
            }
        }
    }

    /// Throws ``ModeldClientError/deferred(until:)`` while the stored back-off holds.
    func checkDeferral(_ trigger: UpdateTrigger, now: Date) throws {
        if let until = Backoff.deferral(notBefore: state.notBefore, retryAfter: state.retryAfter, trigger: trigger, now: now) {
            throw ModeldClientError.deferred(until: until)
        }
    }

    /// Runs one check and keeps the back-off state: reset by a verified answer, advanced by a
    /// failure that counts (``Backoff/advances(_:)``), persisted either way.
    func recordingBackoff(_ check: () async throws -> CheckResult) async throws -> CheckResult {
        retryAfter = nil
        do {
            let result = try await check()
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

    func checkServer(_ base: URL, now: Date, sendEvents: Bool) async throws -> CheckResult {
        var query = [URLQueryItem(name: "sdk", value: configuration.sdkVersion),
                     URLQueryItem(name: "channel", value: configuration.channel)]
        query.append(URLQueryItem(name: "client_id", value: state.clientID))
        query += configuration.deviceAttributes.queryItems
        if let baseChannel = configuration.baseChannel, let base = installedBases().installed[baseChannel] {
            query.append(URLQueryItem(name: "base", value: base))
        }
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
    func checkStatic(_ location: URL, now: Date) async throws -> CheckResult {
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
    func checkRules(_ source: RulesSource, now: Date) async throws -> CheckResult {
        let outcome: RulesVerifier.Outcome
        do { outcome = try await source.fetch(now: now) } catch let failure as RulesSource.Failure {
            retryAfter = failure.retryAfter
            throw failure.error
        }
        if configuration.events != nil { _ = try? await flushEvents() }   // best effort: they stay queued
        return try evaluate(outcome)
    }

    /// The verified rules, evaluated for this install with the server's own selection.
    func evaluate(_ outcome: RulesVerifier.Outcome) throws -> CheckResult {
        guard let answer = outcome.snapshot.answer(sdk: sdk, clientID: state.clientID, device: configuration.deviceAttributes,
                                                   bases: installedBases()) else {
            return CheckResult(status: .noModel, release: nil, catalog: outcome.catalog)
        }
        let release = answer.document
        try release.validate()
        return decide(release, catalog: outcome.catalog)
    }

    /// The active model of every channel of the cache (SPEC §3.2: the bases this device
    /// reports), read like `installedModels()`: a channel that cannot be read reports nothing.
    func installedBases() -> ReportedBases {
        var installed: [String: String] = [:]
        for model in (try? installedModels()) ?? [] where model.active {
            installed[model.channel] = model.sha256
        }
        return ReportedBases(installed: installed)
    }

    func verify(_ answer: HTTPAnswer, body: [UInt8], now: Date) throws -> CheckResult {
        let signed = SignedAnswer(paramsHeader: answer.header("Modeld-Signature-Params"),
                                  signatureHeader: answer.header("Modeld-Signature"), body: body)
        return try accept(Data(body), catalog: try verifier.verifyLatest(signed, now: now))
    }

    /// A §4.1 document from an answer whose signature vouched for `catalog`.
    func accept(_ document: Data, catalog: Int64?) throws -> CheckResult {
        try ratchet(catalog)
        let release = try decodeRelease(document)
        try commit(catalog)
        return decide(release, catalog: catalog)
    }

    /// Rollback protection: a verified catalog version never goes down.
    func ratchet(_ catalog: Int64?) throws {
        if let catalog, let highest = state.highestCatalog, catalog < highest {
            throw ModeldClientError.verification("catalog version \(catalog) is older than \(highest), already seen")
        }
    }

    func commit(_ catalog: Int64?) throws {
        if let catalog { state.highestCatalog = max(catalog, state.highestCatalog ?? catalog) }
    }

    func decodeRelease(_ data: Data) throws -> ReleaseDocument {
        let release: ReleaseDocument
        do { release = try JSONDecoder().decode(ReleaseDocument.self, from: data) } catch {
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

    func decide(_ release: ReleaseDocument, catalog: Int64?) -> CheckResult {
        let current = release.id == (state.active ?? configuration.bundledModel?.id) || state.blocked.contains(release.id)
        return CheckResult(status: current ? .upToDate : .available, release: release, catalog: catalog)
    }
}

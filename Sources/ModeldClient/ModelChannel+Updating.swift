import Foundation

// Updates: check, then download (patch, delta, packed or full), verify, prepare and install atomically (SPEC §13, §14, §16).

extension ModelChannel {
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
    public func download(_ release: ReleaseDocument) async throws -> InstalledModel {
        if let inFlight = downloadsInFlight[release.id] { return try await inFlight.value() }
        let flight = SharedFlight { try await self.performDownload(release) }
        downloadsInFlight[release.id] = flight
        defer { downloadsInFlight[release.id] = nil }
        return try await flight.value()
    }

    func performUpdate(_ trigger: UpdateTrigger) async throws -> UpdateResult {
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

    func checkAndInstall(_ trigger: UpdateTrigger) async throws -> UpdateResult {
        try collectAdaptersOfGoneBases()
        return try await install(try await check(trigger))
    }

    /// Downloads and installs what a check found (nothing for `noModel` and `upToDate`).
    func install(_ found: CheckResult) async throws -> UpdateResult {
        switch found.status {
        case .noModel, .upToDate:
            // Nothing to download: a background task of an earlier launch is for an unwanted release.
            if let session = transports.wholeFiles { await session.book.keepOnly(nil, channel: configuration.channel, session: session) }
            return UpdateResult(status: found.status == .noModel ? .noModel : .upToDate, active: activeModel(), catalog: found.catalog)
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

    /// SPEC §3.2: a release that says how much space its download and install need is refused
    /// before any byte moves when the volume has less free (a resumed partial's bytes count as
    /// held). Without `disk_bytes` the downloaders' own size + 10 % rule applies.
    func checkDiskBytes(_ release: ReleaseDocument) throws {
        guard let diskBytes = release.diskBytes else { return }
        let part = store.partial.appendingPathComponent("\(release.id).part")
        let held = ((try? FileManager.default.attributesOfItem(atPath: part.path))?[.size] as? NSNumber)?.int64Value ?? 0
        let available = try DiskIO.availableBytes(at: store.root)
        guard available >= diskBytes - held else {
            throw ModeldClientError.insufficientStorage(needed: diskBytes - held, available: available)
        }
    }

    func performDownload(_ release: ReleaseDocument) async throws -> InstalledModel {
        try ensureOpen()
        try release.validate()
        if let bundled = configuration.bundledModel, bundled.id == release.id, bundled.sha256 == release.sha256 {
            return try activateBundled()
        }
        try checkDiskBytes(release)
        let held = [state.active].compactMap { $0 } + state.previous
        var models = held.compactMap(store.installed)
        // The app's bundled file is a patch's base too (SPEC §16): a first update can be a patch.
        if let bundled = configuration.bundledModel, let url = bundled.url, url.isFileURL, FileManager.default.fileExists(atPath: url.path) {
            models.append(bundled.installed(channel: configuration.channel, sdkVersion: configuration.sdkVersion))
        }
        let fetched = try await ModelFetcher(transport: transports.modelBytes, background: transports.wholeFiles.map { ($0, configuration.channel) },
                                             directory: store.partial, progress: progress)
            .fetch(release, sources: store.deltaSources(held), models: models)
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
}

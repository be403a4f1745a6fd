import ArgumentParser
import Foundation
import ModeldClient

/// The `--json` shape of `check`, `update` and `status` (SPEC §13), and its text form.
struct StateOutput {
    enum State: String {
        case upToDate = "up_to_date", available, updated, noModel = "no_model", rejected, installed, none

        init(_ status: CheckResult.Status) {
            switch status {
            case .upToDate: self = .upToDate
            case .available: self = .available
            case .noModel: self = .noModel
            }
        }

        init(_ status: UpdateResult.Status) {
            switch status {
            case .upToDate: self = .upToDate
            case .updated: self = .updated
            case .noModel: self = .noModel
            case .available: self = .available
            }
        }
    }

    var state: State
    var active: InstalledModel?
    var catalog: Int64?
    var reason: String?
    /// `check`'s newer release, named in the text form.
    var release: ReleaseDocument?
    /// `status`: events queued and events dropped because the queue was full (SPEC §9.2).
    var events: (pending: Int, dropped: Int)?
    /// `update`'s body bytes fetched (SPEC §14); absent from `check` and `status`.
    var bytesFetched: Int64?
    /// `update`'s `delta` or `full` when it installed a release (as `model_activated` says).
    var method: FetchMethod?
    /// A multi-channel `update`: the channel this result is for (text: a `<channel>: ` prefix).
    var channel: String?

    /// `path`: the model file (null for a bundled model without a URL); `prepared`: what the app
    /// loads when it is not the file (an unpacked archive, a compiled Core ML model) or null.
    static func json(_ model: InstalledModel) -> [String: Any] {
        var object: [String: Any] = ["id": model.id, "sha256": model.sha256, "size": model.size, "path": model.path.path,
                                     "prepared": model.prepared.map { $0.path as Any } ?? NSNull(), "bundled": model.isBundled]
        if model.isBundled, model.release.url.isEmpty { object["path"] = NSNull() }
        // SPEC §3.2: the base an adapter applies on (the pairing) and what was known before the download.
        if let base = model.base { object["base"] = ["channel": base.channel, "sha256": base.sha256] }
        if let name = model.displayName { object["display_name"] = name }
        if let license = model.license {
            object["license"] = ["spdx": license.spdx, "url": license.url, "sha256": license.sha256].compactMapValues { $0 }
        }
        if let minRAMMB = model.minRAMMB { object["min_ram_mb"] = minRAMMB }
        if let diskBytes = model.diskBytes { object["disk_bytes"] = diskBytes }
        return object
    }

    func print(json: Bool) {
        if json {
            var object: [String: Any] = [
                "state": state.rawValue,
                "active": active.map(Self.json) ?? NSNull(),
                "catalog": catalog.map { $0 as Any } ?? NSNull(),
                "reason": reason.map { $0 as Any } ?? NSNull(),
            ]
            if let events { object["events"] = ["pending": events.pending, "dropped": events.dropped] }
            if let bytesFetched { object["bytes_fetched"] = bytesFetched }
            if let method { object["method"] = method.rawValue }
            if let channel { object["channel"] = channel }
            let data = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
            Swift.print(String(decoding: data, as: UTF8.self))
            return
        }
        if let channel { Swift.print("\(channel): ", terminator: "") }
        switch state {
        case .upToDate: Swift.print("up to date\(active.map { ": \($0.id)" } ?? "")")
        case .available:
            if let release { Swift.print("available: \(release.id) (\(release.size) bytes, sha256 \(release.sha256), label \(release.label ?? "-"))") }
        case .updated, .installed: if let active { Swift.print("active: \(active.id) \(active.path.path) sha256 \(active.sha256)") }
        case .noModel: Swift.print("no model for this SDK and channel")
        case .rejected: Swift.print("rejected: \(reason ?? "")")
        case .none: Swift.print("no model installed")
        }
        if let events { Swift.print("events: \(events.pending) queued, \(events.dropped) dropped (queue full)") }
    }
}

extension ModeldClientCommand {
    /// Runs a check or update: verification failures are reported as `rejected` (exit 1).
    func report(_ body: (ModelChannel) async throws -> StateOutput) async throws {
        try await withClient { client in
            warnIfUnsigned()
            do {
                try await body(client).print(json: json)
            } catch ModeldClientError.verification(let reason) {
                StateOutput(state: .rejected, active: await client.activeModel(), reason: reason).print(json: json)
                printError("modeld-client: verification failed: \(reason)")
                throw ExitCode(1)
            }
        }
    }
}

extension ModeldClientCommand {
    /// `update --channel A --channel B …`: one check for every channel (SPEC §17.2), then each
    /// channel's download; one result per channel, in the order given (with `--json`, one
    /// object per line, `"channel"` added). Exit 1 when any channel failed.
    func updateChannels(_ trigger: UpdateTrigger) async throws {
        guard Set(channels).count == channels.count else { throw CLIFailure.usage("--channel lists a channel twice") }
        let cache: ModelCache
        do { cache = try ModelCache(try clientConfiguration()) } catch let error as ModeldClientError {
            printError("modeld-client: \(error)")
            if case .invalidConfiguration = error { throw ExitCode(2) }
            throw ExitCode(1)
        }
        warnIfUnsigned()
        let names = channels
        let results = try await Interruption.exitOnSignal { await cache.update(channels: names, trigger) }
        var failed = false
        for outcome in results {
            let channelCache = try? await cache.channel(named: outcome.channel)
            var output: StateOutput
            switch outcome.result {
            case .success(let r):
                output = StateOutput(state: .init(r.status), active: r.active, catalog: r.catalog, bytesFetched: r.bytesFetched, method: r.method)
            case .failure(ModeldClientError.verification(let reason)):
                failed = true
                output = StateOutput(state: .rejected, active: await channelCache?.activeModel(), reason: reason)
                printError("modeld-client: \(outcome.channel): verification failed: \(reason)")
            case .failure(let error):
                failed = true
                printError("modeld-client: \(outcome.channel): \(error)")
                continue
            }
            output.channel = outcome.channel
            output.print(json: json)
        }
        await cache.close()
        if failed { throw ExitCode(1) }
    }
}

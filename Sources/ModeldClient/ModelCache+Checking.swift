import Foundation

/// One channel's result of ``ModelCache/check(channels:_:)`` or ``ModelCache/update(channels:_:)``.
public struct ChannelResult<Value: Sendable>: Sendable {
    public let channel: String
    public let result: Result<Value, any Error>
}

// Every channel of the cache in one request per poll (SPEC §17.2): `POST /check` with the
// events queued for any of them.

extension ModelCache {
    /// Checks `names` (in that order): with a server source and several channels in one `POST
    /// /check` per client id (the events queued for any of them ride along); in rules mode
    /// through the rules index (one revalidation, then only changed snapshots); otherwise each
    /// on its own. A channel backing off answers ``ModeldClientError/deferred(until:)``.
    public func check(channels names: [String], _ trigger: UpdateTrigger = .scheduled) async -> [ChannelResult<CheckResult>] {
        var opened: [(String, ModelChannel)] = []
        var results: [String: Result<CheckResult, any Error>] = [:]
        for name in names {
            do { opened.append((name, try channel(named: name))) } catch { results[name] = .failure(error) }
        }
        if case .server(let base) = configuration.source, opened.count > 1 {
            await checkTogether(opened.map(\.1), base: base, trigger, into: &results)
        } else if case .rules(let base) = configuration.source, opened.count > 1 {
            await checkWithIndex(opened.map(\.1), base: base, trigger, into: &results)
        } else {
            for (name, channel) in opened {
                do { results[name] = .success(try await channel.check(trigger)) } catch { results[name] = .failure(error) }
            }
        }
        return names.map { ChannelResult(channel: $0, result: results[$0]!) }
    }

    /// ``check(channels:_:)``, then each channel downloads and installs what it found.
    public func update(channels names: [String], _ trigger: UpdateTrigger = .scheduled) async -> [ChannelResult<UpdateResult>] {
        var out: [ChannelResult<UpdateResult>] = []
        for checked in await check(channels: names, trigger) {
            switch checked.result {
            case .failure(let error): out.append(ChannelResult(channel: checked.channel, result: .failure(error)))
            case .success(let found):
                do {
                    let installed = try await channel(named: checked.channel).install(found)
                    out.append(ChannelResult(channel: checked.channel, result: .success(installed)))
                } catch {
                    out.append(ChannelResult(channel: checked.channel, result: .failure(error)))
                }
            }
        }
        return out
    }

    private func checkTogether(_ channels: [ModelChannel], base: URL, _ trigger: UpdateTrigger,
                               into results: inout [String: Result<CheckResult, any Error>]) async {
        let now = Date()
        await finishAcknowledgements()
        var groups: [String: [(ModelChannel, BatchedCheck.Part)]] = [:], order: [String] = []
        for channel in channels {
            do {
                let part = try await channel.batchedCheckPart(trigger, now: now)
                if groups[part.clientID] == nil { order.append(part.clientID) }
                groups[part.clientID, default: []].append((channel, part))
            } catch { results[channel.configuration.channel] = .failure(error) }
        }
        // Channels of one install share its identity; a cache migrated from per-channel ids may not.
        for clientID in order {
            for slice in stride(from: 0, to: groups[clientID]!.count, by: BatchedCheck.maxChannels) {
                let members = Array(groups[clientID]![slice..<min(slice + BatchedCheck.maxChannels, groups[clientID]!.count)])
                let outcomes = await ask(base, clientID: clientID, parts: members.map(\.1), now: now)
                for (channel, part) in members {
                    do { results[part.channel] = .success(try await channel.finishBatchedCheck(outcomes[part.channel]!)) } catch {
                        results[part.channel] = .failure(error)
                    }
                }
            }
        }
    }

    /// One `POST /check`; the riders' batches are acknowledged once the answer is verified.
    private func ask(_ base: URL, clientID: String, parts: [BatchedCheck.Part], now: Date,
                     withEvents: Bool = true) async -> [String: ModelChannel.BatchedOutcome] {
        func all(_ outcome: ModelChannel.BatchedOutcome) -> [String: ModelChannel.BatchedOutcome] {
            Dictionary(uniqueKeysWithValues: parts.map { ($0.channel, outcome) })
        }
        let riders = withEvents ? BatchedCheck.riders(parts) : []
        var query = [URLQueryItem(name: "sdk", value: configuration.sdkVersion)]
        query += configuration.deviceAttributes.queryItems
        var request = HTTPRequest(url: ModelChannel.url(base, path: "check", query: query))
        request.method = "POST"
        request.headers["Content-Type"] = "application/json"
        request.body = BatchedCheck.body(clientID: clientID, parts: parts, riders: riders)
        let answer: HTTPAnswer
        do { answer = try await transports.control.send(request) } catch {
            return all(.failed(error as? ModeldClientError ?? .network("\(error)"), retryAfter: nil))
        }
        if !riders.isEmpty, answer.status == 400 || answer.status == 413 {
            // A batch the server refused: check without it, and let each rider's own queue
            // settle its batch (quarantine or split, SPEC §13) through POST /events.
            let outcomes = await ask(base, clientID: clientID, parts: parts, now: now, withEvents: false)
            for (channel, _) in riders { _ = try? await self.channel(named: channel).flushEvents() }
            return outcomes
        }
        guard answer.status == 200 else { return all(.failed(answer.asError(), retryAfter: answer.header("Retry-After"))) }
        let catalog: Int64?, documents: [String: Data?]
        do {
            catalog = try verifier.verifyLatest(SignedAnswer(paramsHeader: answer.header("Modeld-Signature-Params"),
                                                             signatureHeader: answer.header("Modeld-Signature"), body: answer.body), now: now)
            documents = try BatchedCheck.answers(answer.body, channels: parts.map(\.channel))
        } catch {
            return all(.failed(error as? ModeldClientError ?? .verification("\(error)"), retryAfter: nil))
        }
        if !riders.isEmpty { await acknowledge(riders.map { ($0.channel, $0.batch.file.lastPathComponent) }) }
        return Dictionary(uniqueKeysWithValues: parts.map { ($0.channel, .answered(documents[$0.channel]!, catalog: catalog)) })
    }

    // MARK: acknowledgements across channels

    /// `<cache>/check-acks.json`: the batches one stored batched upload carried, written before
    /// any is forgotten, so a crash between two channels' acknowledgements does not send the
    /// rest again under a new combined batch id.
    private var acknowledgementsFile: URL { configuration.cacheDirectory.appendingPathComponent("check-acks.json") }

    private struct Acknowledgement: Codable {
        let channel: String
        let file: String
    }

    private func acknowledge(_ batches: [(channel: String, file: String)]) async {
        let list = batches.map { Acknowledgement(channel: $0.channel, file: $0.file) }
        // Unwritable: acknowledge anyway; at worst a crash now re-sends some (the server keeps both).
        try? DiskIO.atomicWrite(try JSONEncoder().encode(list), to: acknowledgementsFile)
        await finishAcknowledgements()
    }

    /// Forgets every batch the journal lists, then the journal.
    private func finishAcknowledgements() async {
        guard let data = try? DiskIO.readIfExists(acknowledgementsFile),
              let list = try? JSONDecoder().decode([Acknowledgement].self, from: data) else { return }
        var done = true
        for entry in list {
            do { try await channel(named: entry.channel).acknowledgeBatch(named: entry.file) } catch { done = false }
        }
        if done { try? FileManager.default.removeItem(at: acknowledgementsFile) }
    }
}

import Foundation
import ReleaseSelection
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ModeldClient

/// `simulate --rules URL [--events URL]` (SPEC §9.2): every simulated install revalidates the
/// channel's rules pointer (ETag, as a device polling a CDN would), evaluates the verified
/// snapshot itself with the shared selection, and posts its event to the ingest server, so the
/// loop from outcomes to rollouts runs without a model server.
actor RulesFeed {
    let base: URL
    let events: URL?
    let sdk: SDKVersion
    let device: DeviceAttributes
    private let verifier: RulesVerifier
    private var etag: String?
    private var pointer: [UInt8]?
    private var snapshotBytes: [UInt8]?
    private var current: RulesVerifier.Outcome?

    init(base: URL, events: URL?, sdk: SDKVersion, device: DeviceAttributes, verifier: RulesVerifier) {
        self.base = base
        self.events = events
        self.sdk = sdk
        self.device = device
        self.verifier = verifier
    }

    /// The verified snapshot after one conditional GET of the pointer (and of the snapshot it
    /// names when that changed); throws on any failure, keeping the last good one for later.
    func refresh(session: URLSession) async throws -> RulesSnapshot {
        var request = URLRequest(url: base.appendingPathComponent("rules/\(verifier.channel).sig.json"))
        if let etag { request.setValue(etag, forHTTPHeaderField: "If-None-Match") }
        let (data, response) = try await session.data(for: request)
        guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
        if http.statusCode == 304, let current { return try reverified(current) }
        guard http.statusCode == 200 else { throw URLError(.badServerResponse) }
        let newPointer = Array(data)
        if newPointer != pointer {
            let file = try JSONDecoder().decode(PointerFile.self, from: data).file
            let url = base.appendingPathComponent("rules").appendingPathComponent(file)
            let (snapshot, snapshotResponse) = try await session.data(for: URLRequest(url: url))
            guard (snapshotResponse as? HTTPURLResponse)?.statusCode == 200 else { throw URLError(.badServerResponse) }
            let outcome = try verifier.verify(pointer: newPointer, snapshot: Array(snapshot), now: Date(), highest: current?.catalog, reusing: current)
            (pointer, snapshotBytes, current) = (newPointer, Array(snapshot), outcome)
        }
        etag = http.value(forHTTPHeaderField: "ETag")
        return current!.snapshot
    }

    /// A 304 still re-checks the stored pointer's expiry; the snapshot it names is decoded already.
    private func reverified(_ outcome: RulesVerifier.Outcome) throws -> RulesSnapshot {
        guard let pointer, let snapshotBytes else { return outcome.snapshot }
        return try verifier.verify(pointer: pointer, snapshot: snapshotBytes, now: Date(), highest: nil, reusing: outcome).snapshot
    }

    private struct PointerFile: Decodable { let file: String }
}

extension Simulation {
    /// One rules check: refresh, evaluate locally, and with a model post one event to the
    /// events URL (`POST /events?sdk=`). nil on any failure.
    func checkRules(_ feed: RulesFeed, clientID: String, model: String?) async -> (model: String?, event: Bool?)? {
        guard let snapshot = try? await feed.refresh(session: session) else { return nil }
        let answer = snapshot.answer(sdk: feed.sdk, clientID: clientID, device: feed.device)
        var success: Bool?
        if let model, let events = feed.events {
            var components = URLComponents(url: events.appendingPathComponent("events"), resolvingAgainstBaseURL: false)!
            components.queryItems = [URLQueryItem(name: "sdk", value: plan.sdk)]
            var request = URLRequest(url: components.url!)
            let won = attachEvent(to: &request, clientID: clientID, model: model)
            guard let (_, response) = try? await session.data(for: request),
                  (response as? HTTPURLResponse)?.statusCode == 200 else { return nil }
            success = won
        }
        return (answer?.release.id, success)
    }
}

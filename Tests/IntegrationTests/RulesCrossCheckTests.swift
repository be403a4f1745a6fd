import Foundation
import ReleaseSelection
import Synchronization
import HTTPTestSupport
import ModeldClient
import Testing
import TestRandomness

/// SPEC §9.2's proof that rules evaluated on the device answer exactly what `/latest` does:
/// a catalog with every selection feature is published into the real modeld through modelctl,
/// the client verifies and evaluates the channel's rules as served by modeld, and ≥ 100,000
/// random (sdk, channel, client_id, platform, os, ram_mb, device) tuples are asked of both — the
/// client locally, the server over one pipelined keep-alive connection — with 0 differences:
/// the server's document, decoded as the client decodes it, equals the local one member for member.
@Suite(.serialized) final class RulesCrossCheckTests {
    struct Tuple {
        let sdk: String
        let channel: String
        let clientID: String?
        let platform: String?
        let os: String?
        let ramMB: Int?
        let device: String?

        var query: String {
            var q = "sdk=\(sdk)&channel=\(channel)"
            if let clientID { q += "&client_id=\(clientID)" }
            if let platform { q += "&platform=\(platform)" }
            if let os { q += "&os=\(os)" }
            if let ramMB { q += "&ram_mb=\(ramMB)" }
            if let device { q += "&device=\(device.replacingOccurrences(of: ",", with: "%2C"))" }
            return q
        }

        var attributes: DeviceAttributes {
            DeviceAttributes(platform: platform, os: os.flatMap { SDKVersion($0) }, ramMB: ramMB, device: device)
        }
    }

    /// Publishes the catalog: 100 % and partial releases with SDK ranges, every variant
    /// condition, a paused and a retired release, a 0 % release, a guarded challenger at its
    /// first stage, and a second channel. Returns release ids by label.
    private func publishCatalog(_ fx: CatalogFixture) throws -> [String: String] {
        var ids: [String: String] = [:]
        func publish(_ label: String, _ sdkMin: String, _ extra: [String]) throws {
            ids[label] = try #require(try fx.publish(try fx.randomFile("\(label).gguf", size: 100 + ids.count), sdkMin: sdkMin,
                                                     ["--label", label] + extra)["id"] as? String)
        }
        func variant(_ label: String, _ name: String, _ requires: String) throws {
            let r = try fx.modelctl(["variant", "add", ids[label]!, try fx.randomFile("\(name).gguf", size: 50).path,
                                     "--name", name, "--requires", requires])
            try #require(r.status == 0, "variant add: \(r.stderr)")
        }
        try publish("a", "1.0", [])
        try publish("b", "2.0", ["--sdk-max", "3.0"])
        try variant("b", "8gb", "platform=ios|ipados,min_ram_mb=7000")
        try variant("b", "new-os", "min_os=17.2")
        try variant("b", "iphone16", #"{"device_prefix":["iPhone16,","iPhone17,"]}"#)
        try variant("b", "linux", "platform=linux")
        try variant("b", "everything", #"{"platform":["macos"],"min_os":"14.0","min_ram_mb":16000,"device_prefix":["Mac"]}"#)
        try publish("c", "2.0", ["--sdk-max", "3.0", "--rollout", "30"])
        try variant("c", "big", "min_ram_mb=16000")
        try publish("paused", "2.0", ["--sdk-max", "3.0"])
        try #require(try fx.modelctl(["pause", ids["paused"]!]).status == 0)
        try publish("retired", "2.5", ["--sdk-max", "3.0"])
        try #require(try fx.modelctl(["retire", ids["retired"]!]).status == 0)
        try publish("guarded", "2.0", ["--sdk-max", "3.0", "--guard-metric", "upsell:purchased", "--stages", "10,50"])
        try publish("zero", "3.0", ["--sdk-max", "4.0", "--rollout", "0"])
        try publish("beta", "1.0", ["--sdk-max", "2.0", "--channel", "beta"])
        try variant("beta", "small", "platform=watchos")
        try publish("beta-narrow", "2.0.5", ["--sdk-max", "2.0.6", "--channel", "beta", "--rollout", "50"])
        return ids
    }

    /// The client's side: the channel's pointer and snapshot fetched from modeld, verified and
    /// decoded by ModelChannel's own verifier (nil: the channel has no rules → 404).
    private func clientRules(_ fx: CatalogFixture, _ channel: String) throws -> RulesSnapshot? {
        let pointer = try fx.curl("/rules/\(channel).sig.json")
        if pointer.status == 404 { return nil }
        try #require(pointer.status == 200, "pointer \(channel): \(pointer.text)")
        let file = try #require(pointer.json?["file"] as? String)
        let snapshot = try fx.curl("/rules/\(file)")
        try #require(snapshot.status == 200)
        return try RulesVerifier(channel: channel, trustedKeys: []).verify(pointer: Array(pointer.body), snapshot: Array(snapshot.body),
                                                                           now: Date(), highest: nil).snapshot
    }

    /// Every rollout edge of every partial release (buckets 0, p−1, p, 99), the guarded
    /// release's arms, then random client ids.
    private func clientIDs(_ ids: [String: String], _ random: inout SeededGenerator) throws -> [String] {
        var edge: [String] = []
        let candidates = (0..<3000).map { "edge-\($0)" }
        for (label, p) in [("c", 30), ("guarded", 10), ("beta-narrow", 50)] {
            let buckets = try RolloutOracle.buckets(releaseID: ids[label]!, clientIDs: candidates)
            for b in Set([0, p - 1, p, 99, 100 - p, 100 - p - 1]) {
                edge.append(try #require(candidates.first { buckets[$0] == b }, "no id in bucket \(b) of \(label)"))
            }
        }
        return edge + (0..<5000).map { _ in "c-\(random.next() % 1_000_000_007)" }
    }

    @Test func clientRulesAnswerEqualsLatest_100kTuples_SPEC9_2() throws {
        let fx = try CatalogFixture()
        let ids = try publishCatalog(fx)
        var random = SeededGenerator(state: 0x92_2026)
        let clients = try clientIDs(ids, &random)
        let channels = ["stable", "beta", "none"]
        var fetched: [String: RulesSnapshot] = [:]
        for channel in channels { fetched[channel] = try clientRules(fx, channel) }
        let rules = fetched
        #expect(rules["stable"]?.releases.count == 5)   // a b c guarded zero; nothing paused or retired
        #expect(rules["none"] == nil)

        let sdks = ["0.9", "1", "1.0.0", "1.9.999999", "2", "2.0.4", "2.0.5", "2.0.6", "2.3", "2.4.999999", "2.5", "2.9.999999",
                    "3", "3.0.1", "3.999999.999999", "4"]
        let platforms: [String?] = [nil, "ios", "ipados", "macos", "linux", "watchos", "android"]
        let oses: [String?] = [nil, "14.0", "17.1.9", "17.2", "17.10", "6.8.0"]
        let rams: [Int?] = [nil, 2048, 6999, 7000, 8192, 15999, 16000]
        let devices: [String?] = [nil, "iPhone16,2", "iPhone17,1", "iPhone15,4", "Mac15,3", "x86_64"]
        func pick<T>(_ values: [T]) -> T { values[Int(random.next() % UInt64(values.count))] }
        let count = 100_000
        let tuples = (0..<count).map { i in
            Tuple(sdk: pick(sdks), channel: pick(channels), clientID: i % 10 == 0 ? nil : pick(clients),
                  platform: pick(platforms), os: pick(oses), ramMB: pick(rams), device: pick(devices))
        }

        let started = Date()
        // Four pipelined keep-alive connections in parallel, each with its share of the tuples.
        let lanes = 4
        let results = Mutex<(differences: [String], seen: [String: Int], failures: [String])>(([], [:], []))
        let port = fx.server.port
        DispatchQueue.concurrentPerform(iterations: lanes) { lane in
            var differences: [String] = [], seen: [String: Int] = [:], failures: [String] = []
            do {
                let connection = try RawClient(port: port, timeoutSeconds: 60)
                defer { connection.close() }
                let mine = Array(stride(from: lane, to: count, by: lanes))
                let window = 256
                for start in stride(from: 0, to: mine.count, by: window) {
                    let batch = mine[start..<min(start + window, mine.count)].map { tuples[$0] }
                    try connection.send(batch.map { "GET /latest?\($0.query) HTTP/1.1\r\nHost: t\r\n\r\n" }.joined())
                    for tuple in batch {
                        let response = try connection.readResponse()
                        var server: ReleaseDocument?
                        if response.status == 200 {
                            server = try JSONDecoder().decode(ReleaseDocument.self, from: Data(response.body))
                        } else if response.status != 404 {
                            failures.append("\(tuple.query): \(response.status)")
                        }
                        let local = rules[tuple.channel]?.answer(sdk: SDKVersion(tuple.sdk)!, clientID: tuple.clientID, device: tuple.attributes)?.document
                        if local != server, differences.count < 20 {
                            differences.append("\(tuple.query): client \(String(describing: local)), server \(String(describing: server))")
                        }
                        seen[(server?.id).map { id in ids.first { $0.value == id }!.key } ?? "none", default: 0] += 1
                        if let v = server?.variant { seen["variant " + v, default: 0] += 1 }
                    }
                }
            } catch {
                failures.append("lane \(lane): \(error)")
            }
            results.withLock { r in
                r.differences += differences
                r.failures += failures
                r.seen.merge(seen, uniquingKeysWith: +)
            }
        }
        let (differences, seen, failures) = results.withLock { $0 }
        #expect(failures.isEmpty, "\(failures.prefix(5))")
        #expect(seen.values.reduce(0, +) >= count, "every tuple answered")
        #expect(differences.isEmpty, "\(differences.count)+ differences: \(differences)")
        // The tuples did reach every answer the catalog can give.
        for key in ["a", "b", "c", "guarded", "beta", "beta-narrow", "none", "variant 8gb", "variant new-os", "variant iphone16",
                    "variant linux", "variant everything", "variant big", "variant small"] {
            #expect(seen[key, default: 0] > 0, "no tuple was answered \(key): \(seen)")
        }
        #expect(seen["paused"] == nil && seen["retired"] == nil && seen["zero"] == nil)
        print("rules cross-check: \(count) tuples in \(String(format: "%.1f", Date().timeIntervalSince(started))) s, answers \(seen)")
    }
}

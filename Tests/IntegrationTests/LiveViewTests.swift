import ChildProcesses
import Foundation
import HTTPTestSupport
import Testing

/// What is live (SPEC §15.1) through the real modeld and modelctl: `GET /admin/live` states a
/// share per release and SDK range, and 10,000 real `/latest` answers per range bear it out.
@Suite(.serialized) final class LiveViewTests {
    let fx: CatalogFixture
    /// Release ids by the role they play below.
    var ids: [String: String] = [:]

    /// stable: base (1.0–, 100 %, a variant), wide (2.0–3.0, 30 %), half (2.0–, 50 %), then
    /// paused (1.0–, 100 %, paused) and gone (1.0–, retired). beta: only a 40 % rollout.
    /// guarded: a baseline and a guarded challenger at its first stage (10 %).
    init() throws {
        fx = try CatalogFixture()
        let plan = #"{"metric":{"name":"prediction","outcome":"success"},"stages":[10,50]}"#
        let releases: [(String, String)] = [
            ("base", "sdk_min=1.0&label=base"), ("wide", "sdk_min=2.0&sdk_max=3.0&rollout=30&label=wide"),
            ("half", "sdk_min=2.0&rollout=50&label=half"), ("paused", "sdk_min=1.0&label=paused"),
            ("gone", "sdk_min=1.0&label=gone"), ("beta", "sdk_min=1.0&channel=beta&rollout=40"),
            ("baseline", "sdk_min=1.0&channel=guarded"),
            ("challenger", "sdk_min=1.0&channel=guarded&guard=" + plan.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!),
        ]
        for (role, query) in releases {
            let r = try fx.curl("/admin/models?ext=bin&" + query, fx.auth + ["--data-binary", role])
            try #require(r.status == 201, "\(role): \(r.text)")
            ids[role] = try #require(r.json?["id"] as? String)
        }
        let variant = try fx.curl("/admin/models/\(ids["base"]!)/variants?name=8gb&requires=min_ram_mb%3D7000&ext=bin",
                                  fx.auth + ["--data-binary", "variant"])
        try #require(variant.status == 201, "\(variant.text)")
        try #require(try fx.curl("/admin/models/\(ids["paused"]!)", fx.auth + ["-X", "PATCH", "--data", #"{"state":"paused"}"#]).status == 200)
        try #require(try fx.curl("/admin/models/\(ids["gone"]!)", fx.auth + ["-X", "DELETE"]).status == 200)
    }

    private func live(_ query: String = "") throws -> [String: [[String: Any]]] {
        let r = try fx.curl("/admin/live" + query, fx.auth)
        try #require(r.status == 200, "\(r.text)")
        return try #require(r.json?["channels"] as? [String: [[String: Any]]])
    }

    /// (id, share, variants) of one range's serving list.
    private func serving(_ range: [String: Any]) -> [(String, Double, [String])] {
        (range["serving"] as? [[String: Any]] ?? []).map { ($0["id"] as? String ?? "", $0["share"] as? Double ?? -1, $0["variants"] as? [String] ?? []) }
    }

    @Test func liveShares_perChannelAndRange_asStated_andByModelctl_SPEC15_1() throws {
        let channels = try live()
        #expect(Set(channels.keys) == ["stable", "beta", "guarded"])
        let stable = try #require(channels["stable"])
        #expect(stable.map { "\($0["sdk_min"]!)–\($0["sdk_max"] as? String ?? "∞")" } == ["1.0.0–2.0.0", "2.0.0–3.0.0", "3.0.0–∞"])
        #expect(stable[0]["sdk_max"] as? String == "2.0.0" && stable[2]["sdk_max"] is NSNull)
        let (base, wide, half) = (ids["base"]!, ids["wide"]!, ids["half"]!)
        func same(_ a: [(String, Double, [String])], _ b: [(String, Double, [String])]) -> Bool {
            a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && abs($0.1 - $1.1) < 1e-9 && $0.2 == $1.2 }
        }
        #expect(same(serving(stable[0]), [(base, 1, ["8gb"])]))
        #expect(same(serving(stable[1]), [(half, 0.5, []), (wide, 0.15, []), (base, 0.35, ["8gb"])]), "\(serving(stable[1]))")
        #expect(same(serving(stable[2]), [(half, 0.5, []), (base, 0.5, ["8gb"])]))
        // Paused and retired releases answer nobody, newest first; never listed as serving.
        for range in stable { #expect(range["shadowed"] as? [String] == [ids["gone"]!, ids["paused"]!]) }
        #expect(same(serving(try #require(channels["beta"]?.first)), [(ids["beta"]!, 0.4, [])]))
        #expect(same(serving(try #require(channels["guarded"]?.first)), [(ids["challenger"]!, 0.1, []), (ids["baseline"]!, 0.9, [])]))

        // One channel; a valid one without releases is listed empty; a bad one is refused.
        #expect(Set(try live("?channel=beta").keys) == ["beta"])
        #expect(try live("?channel=nothing")["nothing"]?.isEmpty == true)
        let bad = try fx.curl("/admin/live?channel=Bad!", fx.auth)
        #expect(bad.status == 400 && bad.json?["error"] as? String == "invalid_parameter")
        #expect(try fx.curl("/admin/live").status == 401)

        // modelctl live prints the document verbatim with --json, else a text per range.
        let json = try fx.modelctl(["live", "--channel", "beta", "--json"])
        #expect(json.status == 0, "\(json.stderr)")
        #expect(json.stdout.hasPrefix(#"{"channels":{"beta":[{"sdk_min":"1.0.0","sdk_max":null,"serving":[{"id":""#), "\(json.stdout)")
        let text = try fx.modelctl(["live"])
        #expect(text.status == 0, "\(text.stderr)")
        for line in ["channel stable", "  sdk ≥ 2.0.0, < 3.0.0", "   50.0%  \(ids["half"]!)  half", "   15.0%  \(ids["wide"]!)  wide",
                     "   35.0%  \(ids["base"]!)  base  variants: 8gb", "   60.0%  no model",
                     "    answers nobody: \(ids["gone"]!), \(ids["paused"]!)"] {
            #expect(text.stdout.contains(line + "\n"), "missing \(line.debugDescription) in\n\(text.stdout)")
        }
        let usage = try fx.modelctl(["live", "--channel", "Bad!"])
        #expect(usage.status == 2 && usage.stderr.contains("--channel"), "\(usage.stderr)")
    }

    /// 10,000 client ids per range through the real `/latest`: each release's measured share is
    /// within ±2 percentage points of the stated one (and the no-model part of a range too).
    @Test func liveShares_match10000RealUpdateChecksPerRange_SPEC15_1() throws {
        let client = try RawClient(port: fx.server.port)
        var checked = 0
        for (channel, ranges) in try live() {
            for (r, range) in ranges.enumerated() {
                let sdk = try #require(range["sdk_min"] as? String)
                let counts = try Self.answers(client, channel: channel, sdk: sdk, clients: 10_000, prefix: "\(channel)-\(r)")
                var stated = Dictionary(uniqueKeysWithValues: serving(range).map { ($0.0, $0.1) })
                stated["no_model"] = 1 - stated.values.reduce(0, +)
                #expect(Set(counts.keys).isSubset(of: Set(stated.keys)), "\(channel) \(sdk): answered \(counts.keys)")
                for (id, share) in stated {
                    let measured = Double(counts[id] ?? 0) / 10_000
                    #expect(abs(measured - share) <= 0.02, "\(channel) \(sdk) \(id): measured \(measured), stated \(share)")
                }
                checked += 1
            }
        }
        #expect(checked == 5)
    }

    /// The release id each of `clients` ids gets (or `no_model`), over one keep-alive connection,
    /// 200 requests pipelined at a time.
    static func answers(_ client: RawClient, channel: String, sdk: String, clients: Int, prefix: String) throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for start in stride(from: 0, to: clients, by: 200) {
            let batch = start..<min(clients, start + 200)
            try client.send(batch.map { "GET /latest?sdk=\(sdk)&channel=\(channel)&client_id=\(prefix)-\($0) HTTP/1.1\r\nHost: t\r\n\r\n" }.joined())
            for _ in batch {
                let r = try client.readResponse()
                if r.status == 404 {
                    counts["no_model", default: 0] += 1
                } else {
                    try #require(r.status == 200, "\(r.status) \(r.text)")
                    let id = try #require(try JSONSerialization.jsonObject(with: Data(r.body)) as? [String: Any])["id"] as? String
                    counts[id ?? "?", default: 0] += 1
                }
            }
        }
        return counts
    }
}

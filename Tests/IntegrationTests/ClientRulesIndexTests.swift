import ChildProcesses
import Foundation
import Testing

/// Rules mode with several channels (SPEC §17.2) through `modeld-client --rules` against the
/// real modeld: the first update fetches the rules index and each channel's snapshot, an update
/// with nothing changed only revalidates the index (304), and a change to one channel fetches
/// the index and that one snapshot; no channel pointer is ever asked for (the access log).
@Suite(.serialized) final class ClientRulesIndexTests {
    static let channels = ["ranker", "faces", "llm"]

    private func update(_ fx: ClientFixture) throws -> [[String: Any]] {
        let r = try ChildProcess.run(TestBinaries.modeldClient, ["--rules", fx.proxy.url, "--sdk", "2.3", "--cache", fx.cache.path]
                                     + Self.channels.flatMap { ["--channel", $0] } + ["--json", "update"], timeout: .seconds(120))
        try #require(r.status == 0, "update: \(r.stdout) \(r.stderr)")
        return r.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    /// `/rules/…` requests of the access log after the first `skip`, as "status path".
    private func rulesRequests(_ fx: ClientFixture, atLeast count: Int, skip: Int) throws -> [String] {
        let all = try fx.accessLog(atLeast: skip + count) { ($0["path"] as? String ?? "").hasPrefix("/rules/") }
        return all.dropFirst(skip).map { "\($0["status"] as? Int ?? 0) \($0["path"] as? String ?? "")" }
    }

    @Test func indexThenOnlyChangedSnapshots_SPEC17_2() throws {
        let fx = try ClientFixture()
        for channel in Self.channels { _ = try fx.publish(size: 1500, channel: channel) }
        let index = try #require(try fx.server.modelsDir.appendingPathComponent("rules/index.sig.json").contentsAsJSON())
        #expect(index["kind"] as? String == "rules-index" && (index["channels"] as? [String: Any])?.count == 3, "\(index)")

        let first = try update(fx)
        #expect(first.map { $0["state"] as? String } == ["updated", "updated", "updated"], "\(first)")
        var seen = try rulesRequests(fx, atLeast: 4, skip: 0)
        #expect(seen.first == "200 /rules/index.sig.json" && seen.count == 4, "\(seen)")
        #expect(Set(seen.dropFirst().map { String($0.split(separator: "/")[2]) }) == Set(Self.channels), "\(seen)")

        // Nothing changed: one revalidation.
        let second = try update(fx)
        #expect(second.allSatisfy { $0["state"] as? String == "up_to_date" })
        seen = try rulesRequests(fx, atLeast: 1, skip: 4)
        #expect(seen == ["304 /rules/index.sig.json"], "\(seen)")

        // One channel changed: the index and that channel's snapshot.
        let newer = try fx.publish(size: 1700, channel: "faces").id
        let third = try update(fx)
        #expect(third.map { $0["state"] as? String } == ["up_to_date", "updated", "up_to_date"], "\(third)")
        #expect((third[1]["active"] as? [String: Any])?["id"] as? String == newer)
        seen = try rulesRequests(fx, atLeast: 2, skip: 5)
        #expect(seen.count == 2 && seen[0] == "200 /rules/index.sig.json" && seen[1].hasPrefix("200 /rules/faces/"), "\(seen)")
        #expect(!(try fx.accessLog { ($0["path"] as? String ?? "").hasSuffix(".sig.json") && $0["path"] as? String != "/rules/index.sig.json" }
            .contains { ($0["path"] as? String ?? "").hasPrefix("/rules/") }), "no channel pointer asked for")
    }
}

extension URL {
    fileprivate func contentsAsJSON() throws -> [String: Any]? {
        try JSONSerialization.jsonObject(with: Data(contentsOf: self)) as? [String: Any]
    }
}

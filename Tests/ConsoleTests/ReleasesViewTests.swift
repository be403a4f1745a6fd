import AccessTokens
import Console
import ModelCatalog
import Testing

/// The releases view leads with what is live (SPEC §15.1).
@Suite struct ReleasesViewTests {
    private func release(_ seq: Int64, percent: Int = 100, state: Release.State = .active) throws -> Release {
        try Release(id: "00000000-0000-4000-8000-00000000000\(seq)", seq: seq, ext: "bin", sha256: String(repeating: "ab", count: 32),
                    size: 1, sdkMin: "1.0", rolloutPercent: percent, state: state, label: "r\(seq)",
                    publishedAt: Timestamp(millisecondsSinceEpoch: 1_000 * seq))
    }

    @Test func liveNowComesFirst_withSharesAndTheNewestFewThatAnswerNobody() throws {
        let releases = try (1...7).map { try release($0) } + [try release(8, state: .paused), try release(9, percent: 20)]
        let page = ReleasesView.page(.success(ReleaseListing(releases, query: ReleaseQuery())), typed: .init([]), served: [:], signature: "unsigned",
                                     session: ConsoleSession(principal: Principal(name: "p", role: .publisher, tokenSHA256: nil),
                                                             csrfToken: "c", expiresAtMillis: 0, handle: "h"))
        let live = try #require(page.firstRange(of: "<h2 id=\"live-h\">Live now</h2>"))
        let publish = try #require(page.firstRange(of: "Publish a release"))
        #expect(live.lowerBound < publish.lowerBound)
        #expect(page.contains("20.00%</span> <a href=\"/console/releases/00000000-0000-4000-8000-000000000009\">")
                && page.contains("80.00%</span> <a href=\"/console/releases/00000000-0000-4000-8000-000000000007\">"))
        #expect(page.contains(" r8 <span class=\"state paused\">paused</span>"))
        #expect(page.contains(" r6 <span class=\"state shadowed\">shadowed</span>") && page.contains("and 2 older"))
        #expect(!page.contains(" r2 <span class=\"state"))   // beyond the newest five
    }
}

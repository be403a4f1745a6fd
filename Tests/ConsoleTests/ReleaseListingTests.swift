import AccessTokens
import Console
import ModelCatalog
import Testing

/// The releases view's filter and pages (SPEC §17.1), without a server: the URL's items in, the
/// page's rows, counts and live channels out, and the links back to the same view.
@Suite struct ReleaseListingTests {
    /// `count` releases per channel, seq ascending in publish order; labels "<channel> r<i>".
    static func catalog(channels: [String], count: Int) throws -> [Release] {
        var seq: Int64 = 0
        var out: [Release] = []
        for i in 0..<count {
            for channel in channels {
                seq += 1
                let digits = String(seq)
                out.append(try Release(id: "00000000-0000-4000-8000-" + String(repeating: "0", count: 12 - digits.count) + digits, seq: seq, ext: "bin",
                                       sha256: String(repeating: "ab", count: 32), size: 1, sdkMin: "1.0", channel: channel,
                                       rolloutPercent: 100, state: i % 5 == 4 ? .paused : .active, label: "\(channel) R\(i)",
                                       publishedAt: Timestamp(millisecondsSinceEpoch: 1_000 * seq)))
            }
        }
        return out
    }

    static func query(_ items: [(String, String)]) -> Result<ReleaseQuery, QueryProblem> {
        ReleaseQuery.parse(ReleaseQuery.Typed(items.map { (name: $0.0, value: $0.1) }))
    }

    @Test func pagesOfAtMostPerPageRows_byChannelThenNewestFirst_andOnlyThePagesChannelsAreLive() throws {
        let releases = try Self.catalog(channels: ["c", "a", "b"], count: 45)   // 135 releases
        let first = ReleaseListing(releases, query: ReleaseQuery())
        #expect(first.total == 135 && first.rows.count == 100 && first.pageCount == 2 && first.firstRow == 1 && first.lastRow == 100)
        #expect(first.rows.map(\.channel) == Array(repeating: "a", count: 45) + Array(repeating: "b", count: 45) + Array(repeating: "c", count: 10))
        #expect(first.rows.prefix(45).map(\.seq) == first.rows.prefix(45).map(\.seq).sorted(by: >))
        #expect(first.live.channels.map(\.name) == ["a", "b", "c"])
        let second = ReleaseListing(releases, query: ReleaseQuery(page: 2))
        #expect(second.rows.count == 35 && second.firstRow == 101 && second.lastRow == 135 && Set(second.rows.map(\.channel)) == ["c"])
        #expect(second.live.channels.map(\.name) == ["c"])
        // The two pages together are the whole listing, each release once.
        #expect(Set((first.rows + second.rows).map(\.id)).count == 135)
        #expect(first.rows.last!.seq > second.rows.first!.seq)   // channel c continues, newest first
        let past = ReleaseListing(releases, query: ReleaseQuery(page: 3))
        #expect(past.isPastTheEnd && past.rows.isEmpty && past.total == 135 && past.live.channels.isEmpty)
        let small = ReleaseListing(releases, query: ReleaseQuery(page: 3, perPage: 20))
        #expect(small.rows.count == 20 && small.firstRow == 41 && small.rows.first!.channel == "a" && small.rows.last!.channel == "b")
    }

    @Test func filtersByExactChannel_labelSubstringIgnoringCase_andState() throws {
        let releases = try Self.catalog(channels: ["beta", "beta-2", "stable"], count: 10)
        let beta = ReleaseListing(releases, query: try Self.query([("channel", "beta")]).get())
        #expect(beta.total == 10 && beta.rows.allSatisfy { $0.channel == "beta" } && beta.live.channels.map(\.name) == ["beta"])
        // The live table stays the channel's: every release of it, not only the filter's.
        let paused = ReleaseListing(releases, query: try Self.query([("channel", "stable"), ("state", "paused")]).get())
        #expect(paused.total == 2 && paused.rows.allSatisfy { $0.state == .paused } && paused.channelReleases.count == 10)
        let label = ReleaseListing(releases, query: try Self.query([("label", "TA-2 r1")]).get())
        #expect(label.rows.map(\.label) == ["beta-2 R1"])
        // Any case, ASCII or not; a label shorter than the text never matches.
        for (text, matched) in [("R1", true), ("r1", true), ("beta-2 r1 ", false), ("", true)] {
            #expect(ReleaseQuery(label: text).matcher(channel: "x", state: .active, label: "beta-2 R1") == matched, "\(text)")
        }
        let unicode = ReleaseQuery(label: "ÜBER").matcher
        #expect(unicode(channel: "x", state: .active, label: "Modell über alles") && !unicode(channel: "x", state: .active, label: "uber"))
        // A channel with no release is still named in "Live now" (nothing is live there).
        let empty = ReleaseListing(releases, query: try Self.query([("channel", "nobody")]).get())
        #expect(empty.total == 0 && empty.rows.isEmpty && empty.live.channels.map(\.name) == ["nobody"])
    }

    @Test func emptyItemsAreUnset_andEveryBadValueIsRefusedByName() throws {
        #expect(try Self.query([("channel", ""), ("label", ""), ("state", ""), ("page", ""), ("per_page", ""), ("next", "x")]).get() == ReleaseQuery())
        #expect(try Self.query([("state", "retired"), ("page", "7"), ("per_page", "20"), ("state", "active")]).get()
                == ReleaseQuery(state: .retired, page: 7, perPage: 20))   // the first occurrence wins
        let refused: [((String, String), String)] = [
            (("channel", "Beta"), "channel \"Beta\" must match"), (("state", "live"), "state must be active, paused or retired"),
            (("page", "0"), "page must be"), (("page", "-1"), "page must be"), (("page", "+2"), "page must be"), (("page", "1e3"), "page must be"),
            (("page", "99999999999999999999"), "page must be"), (("per_page", "101"), "per_page must be a whole number from 1 to 100"),
            (("per_page", "0"), "per_page"), (("label", String(repeating: "x", count: 201)), "label must be at most 200"),
            (("label", "a\u{1}"), "label must not contain control characters"),
        ]
        for (item, message) in refused {
            guard case .failure(let problem) = Self.query([item]) else { Issue.record("accepted \(item)"); continue }
            #expect(problem.message.hasPrefix(message), "\(item): \(problem.message)")
        }
    }

    @Test func linksCarryTheFilterAndPage_andParseBackToTheSameView() throws {
        #expect(ReleaseQuery().href(page: 1) == "/console/")
        let q = ReleaseQuery(channel: "beta", label: "ranker v7 & co", state: .paused, page: 3, perPage: 20)
        let href = q.href(page: 3)
        #expect(href == "/console/?channel=beta&label=ranker%20v7%20%26%20co&state=paused&per_page=20&page=3")
        let items = href.split(separator: "?")[1].split(separator: "&").map { item in
            let parts = item.split(separator: "=", maxSplits: 1).map(String.init)
            return (parts[0], parts[1].replacingPercentEscapes())
        }
        #expect(try Self.query(items).get() == q)
    }

    @Test func thePageShowsTheRowsTheFormAndTheNavigation_andARefusalShowsWhy() throws {
        let releases = try Self.catalog(channels: ["a", "b"], count: 60)
        let session = ConsoleSession(principal: Principal(name: "v", role: .viewer, tokenSHA256: nil), csrfToken: "c", expiresAtMillis: 0, handle: "h")
        let typed = ReleaseQuery.Typed([(name: "label", value: "r"), (name: "page", value: "2"), (name: "per_page", value: "50")])
        let listing = ReleaseListing(releases, query: try ReleaseQuery.parse(typed).get())
        let page = ReleasesView.page(.success(listing), typed: typed, served: [:], signature: "unsigned", session: session)
        #expect(page.contains("Rows 51–100 of 120, page 2 of 3"))
        #expect(page.contains(#"<a href="/console/?label=r&amp;per_page=50&amp;page=3" rel="next">Next page</a>"#))
        #expect(page.contains(#"<a href="/console/?label=r&amp;per_page=50" rel="prev">Previous page</a>"#))
        #expect(page.contains(#"<input id="f-label" name="label" value="r""#) && page.contains(#"<option value="50" selected>"#))
        #expect(page.components(separatedBy: "<tr><td><a href=").count - 1 == 50)
        #expect(!page.contains("<script>") && !page.contains(" onclick"))
        let bad = ReleaseQuery.Typed([(name: "state", value: "<b>")])
        let refused = ReleasesView.page(ReleaseQuery.parse(bad).map { ReleaseListing(releases, query: $0) }, typed: bad, served: [:],
                                        signature: "unsigned", session: session)
        #expect(refused.contains(#"<p class="error" role="alert">state must be active, paused or retired, got &quot;&lt;b&gt;&quot;</p>"#))
        #expect(!refused.contains("<tbody>"))
    }
}

private extension String {
    func replacingPercentEscapes() -> String {
        var bytes: [UInt8] = []
        var it = Array(utf8)[...]
        while let b = it.popFirst() {
            if b == UInt8(ascii: "%"), it.count >= 2, let v = UInt8(String(decoding: it.prefix(2), as: UTF8.self), radix: 16) {
                bytes.append(v); it = it.dropFirst(2)
            } else { bytes.append(b) }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

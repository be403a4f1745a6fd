import ModelCatalog

/// The releases view's filter and page as the URL carries them (SPEC §17.1: a link shows the
/// same view): `/console/?channel=C&label=L&state=S&page=N&per_page=K`, every item optional.
/// Parsed here, never in the HTML writer; a value that cannot be read is refused with the
/// parameter named (the page is then a 400), never guessed at or dropped.
public struct ReleaseQuery: Sendable, Equatable {
    /// SPEC §17.1: pages of at most 100 rows.
    public static let maxPerPage = 100
    /// What the form offers; any 1…100 in the URL is taken as written.
    public static let perPageChoices = [20, 50, 100]

    /// The channel's exact name: channels are identifiers (`[a-z0-9_-]{1,32}`), and `beta` must
    /// not also show `beta-2`.
    public var channel: String?
    /// A case-insensitive substring of the label: labels are free text ("ranker v7 (int8)").
    public var label: String?
    public var state: Release.State?
    /// 1-based.
    public var page = 1
    public var perPage = ReleaseQuery.maxPerPage

    public init(channel: String? = nil, label: String? = nil, state: Release.State? = nil, page: Int = 1, perPage: Int = ReleaseQuery.maxPerPage) {
        self.channel = channel; self.label = label; self.state = state; self.page = page; self.perPage = perPage
    }

    /// The items as typed, for the form to show them again (a refused value too).
    public struct Typed: Sendable, Equatable {
        public var channel = "", label = "", state = "", page = "", perPage = ""

        public init(_ items: [(name: String, value: String)]) {
            // The first occurrence wins, as everywhere in modeld (docs/decisions/query-strings.md).
            for (name, value) in items.reversed() {
                switch name {
                case "channel": channel = value
                case "label": label = value
                case "state": state = value
                case "page": page = value
                case "per_page": perPage = value
                default: break
                }
            }
        }
    }

    /// Empty items mean "not set" (a GET form sends every field, filled or not).
    public static func parse(_ typed: Typed) -> Result<ReleaseQuery, QueryProblem> {
        var q = ReleaseQuery()
        if !typed.channel.isEmpty {
            do throws(CatalogError) { try Release.validateChannel(typed.channel) } catch {
                return .failure(QueryProblem("channel \"\(typed.channel)\" \(error.message)"))
            }
            q.channel = typed.channel
        }
        if !typed.label.isEmpty {
            do throws(CatalogError) { try Release.validateLabel(typed.label) } catch {
                return .failure(QueryProblem("label \(error.message)"))
            }
            q.label = typed.label
        }
        if !typed.state.isEmpty {
            guard let state = Release.State(rawValue: typed.state) else {
                return .failure(QueryProblem("state must be active, paused or retired, got \"\(typed.state)\""))
            }
            q.state = state
        }
        if !typed.page.isEmpty {
            guard let page = positive(typed.page, atMost: 1_000_000) else {
                return .failure(QueryProblem("page must be a whole number from 1, got \"\(typed.page)\""))
            }
            q.page = page
        }
        if !typed.perPage.isEmpty {
            guard let perPage = positive(typed.perPage, atMost: maxPerPage) else {
                return .failure(QueryProblem("per_page must be a whole number from 1 to \(maxPerPage), got \"\(typed.perPage)\""))
            }
            q.perPage = perPage
        }
        return .success(q)
    }

    /// ASCII digits only (no sign, no spaces), so `Int("+3")` and `Int(" 3")` rules never matter.
    private static func positive(_ s: String, atMost limit: Int) -> Int? {
        guard !s.isEmpty, s.utf8.count <= 7, s.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let n = Int(s), (1...limit).contains(n) else { return nil }
        return n
    }

    /// The test a release must pass to be listed (the label lowered once, not per release).
    public var matcher: ReleaseMatcher { ReleaseMatcher(channel: channel, state: state, needle: label?.lowercased()) }

    /// This view at another page: `/console/` plus only the items that differ from the defaults,
    /// so the plain view's link stays `/console/`.
    public func href(page: Int) -> String {
        var items: [String] = []
        if let channel { items.append("channel=" + ConsolePage.queryValue(channel)) }
        if let label { items.append("label=" + ConsolePage.queryValue(label)) }
        if let state { items.append("state=" + state.rawValue) }
        if perPage != Self.maxPerPage { items.append("per_page=\(perPage)") }
        if page != 1 { items.append("page=\(page)") }
        return "/console/" + (items.isEmpty ? "" : "?" + items.joined(separator: "&"))
    }

    public var isFiltered: Bool { channel != nil || label != nil || state != nil }
}

/// `ReleaseQuery`'s filter. It takes the three fields it reads, not the release: the listing
/// tests every release of the catalog per page, and passing a `Release` copied it (a dozen
/// reference-counted fields; perf showed it as most of the page's time at 10,000 releases).
public struct ReleaseMatcher: Sendable {
    let channel: String?, state: Release.State?, needle: String?
    /// The lowered needle's bytes when it is ASCII (then ASCII labels are searched without lowering them).
    let asciiNeedle: [UInt8]?

    init(channel: String?, state: Release.State?, needle: String?) {
        self.channel = channel; self.state = state; self.needle = needle
        asciiNeedle = needle.flatMap { n in n.utf8.allSatisfy { $0 < 0x80 } ? Array(n.utf8) : nil }
    }

    public func callAsFunction(channel: String, state: Release.State, label: String) -> Bool {
        if let wanted = self.channel, channel != wanted { return false }
        if let wanted = self.state, state != wanted { return false }
        if let needle, !contains(label, needle) { return false }
        return true
    }

    /// A case-insensitive substring test. ASCII is compared byte by byte (labels mostly are, and
    /// lowering 10,000 labels per page was the filter's whole cost); anything else goes through
    /// Unicode lowercasing.
    private func contains(_ label: String, _ needle: String) -> Bool {
        if let n = asciiNeedle, let found = label.utf8.withContiguousStorageIfAvailable({ h -> Bool? in
            guard h.allSatisfy({ $0 < 0x80 }) else { return nil }
            guard n.count <= h.count else { return false }
            func lower(_ b: UInt8) -> UInt8 { (0x41...0x5A).contains(b) ? b | 0x20 : b }
            return (0...(h.count - n.count)).contains { start in n.indices.allSatisfy { lower(h[start + $0]) == n[$0] } }
        }), let found {
            return found
        }
        return label.lowercased().contains(needle)
    }
}

/// Why a query was refused, in words that name the parameter.
public struct QueryProblem: Error, Sendable, Equatable {
    public let message: String
    public init(_ message: String) { self.message = message }
}

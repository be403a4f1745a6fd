import ModelCatalog

/// One page of the releases view (SPEC §17.1): the releases a `ReleaseQuery` matches, by
/// channel name and newest first within a channel, cut into pages of `perPage` rows, and what
/// is live in the channels that page shows. Pure: the catalog's releases in, a value out.
///
/// Only the page's channels are sorted and only their live view is computed, so a page costs
/// one pass over the catalog plus the work for at most `perPage` rows' channels, whatever the
/// catalog's size.
public struct ReleaseListing: Sendable {
    public let query: ReleaseQuery
    /// This page's rows, in order.
    public let rows: [Release]
    /// Releases the query matches, on every page.
    public let total: Int
    /// The row number of `rows.first` (1-based) on the whole listing.
    public let firstRow: Int
    /// What is live in the page's channels (the channel filter's channel, even with no row), each
    /// drawn from all of the channel's releases: shares are a channel's, not the filter's.
    public let live: LiveView
    /// Every release of the page's channels: what `live` and the row names are drawn from.
    public let channelReleases: [Release]

    public var pageCount: Int { max(1, (total + query.perPage - 1) / query.perPage) }
    public var lastRow: Int { firstRow + rows.count - 1 }
    /// A page past the last (a link from when there were more releases): no rows, and the view says so.
    public var isPastTheEnd: Bool { query.page > pageCount }

    public init(_ releases: [Release], query: ReleaseQuery) {
        self.query = query
        let matches = query.matcher
        // Indices and fields, never a whole Release: copying one (a dozen reference-counted
        // fields) 10,000 times cost more than the rest of the page.
        var byChannel: [String: [Int]] = [:]
        var total = 0
        for i in releases.indices where matches(channel: releases[i].channel, state: releases[i].state, label: releases[i].label) {
            byChannel[releases[i].channel, default: []].append(i)
            total += 1
        }
        self.total = total
        let skip = (query.page - 1) * query.perPage
        firstRow = skip + 1
        var rows: [Release] = []
        var seen = 0
        for channel in byChannel.keys.sorted() where rows.count < query.perPage {
            let listed = byChannel[channel]!
            defer { seen += listed.count }
            guard seen + listed.count > skip else { continue }   // wholly on earlier pages: not sorted
            let newestFirst = listed.sorted { releases[$0].seq > releases[$1].seq }
            let from = max(0, skip - seen)
            rows += newestFirst[from..<min(newestFirst.count, from + query.perPage - rows.count)].map { releases[$0] }
        }
        self.rows = rows
        let shown = query.channel.map { Set([$0]) } ?? Set(rows.map(\.channel))
        channelReleases = releases.indices.filter { shown.contains(releases[$0].channel) }.map { releases[$0] }
        live = LiveView(channelReleases, only: query.channel)
    }
}

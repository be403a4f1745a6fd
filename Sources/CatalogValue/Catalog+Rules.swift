import JSONSupport
// models/rules/<channel>/<N>.json (SPEC §9.2)
extension Catalog {
    /// Every channel a release was ever published to, sorted. A channel whose releases are all
    /// paused or retired keeps a snapshot (with no releases), so its clients fall back to none.
    public var channels: [String] { releasesByChannel.keys.sorted() }

    /// Every release grouped by channel, each group in catalog order: one pass, so work per
    /// channel (rules snapshots, SPEC §17.1) costs that channel's releases, not the catalog's.
    public var releasesByChannel: [String: [Release]] {
        var groups: [String: [Release]] = [:]
        for r in releases { groups[r.channel, default: []].append(r) }
        return groups
    }

    /// The channels whose releases differ between `earlier` and this catalog (SPEC §17.1: a
    /// change rewrites only the rules snapshots of the channels it changed); nil = every channel
    /// (the base URL changed, which changes every `url`, or no release did: `catalog bump` asks
    /// for fresh snapshots everywhere).
    public func changedChannels(since earlier: Catalog) -> Set<String>? {
        guard publicBaseURL == earlier.publicBaseURL else { return nil }
        let before = earlier.releasesByChannel
        let changed = Set(releasesByChannel.compactMap { channel, now in before[channel] == now ? nil : channel })
        return changed.isEmpty ? nil : changed
    }

    /// The rules snapshot of `channel` at `catalogVersion`:
    /// `{"v":1,"channel":C,"catalog":N,"releases":[…]}` with its active releases in catalog
    /// order. Everything `ReleaseSelector` needs, nothing the operator keeps to itself.
    public func rulesJSON(channel: String, catalogVersion: Int64, publicBaseURL: String) -> [UInt8] {
        Self.rulesJSON(channel: channel, releases: releases, catalogVersion: catalogVersion, publicBaseURL: publicBaseURL)
    }

    /// The same from `releases` (those of other channels are skipped): a channel's group of
    /// `releasesByChannel`, or the whole catalog.
    public static func rulesJSON(channel: String, releases: [Release], catalogVersion: Int64, publicBaseURL: String) -> [UInt8] {
        var w = JSONWriter(capacity: 1024)
        w.beginObject()
        w.field("v", RulesSnapshot.version)
        w.field("channel", channel)
        w.field("catalog", catalogVersion)
        w.key("releases")
        w.beginArray()
        for r in releases where r.state == .active && r.channel == channel {
            r.writeRulesEntry(to: &w, publicBaseURL: publicBaseURL)
        }
        w.endArray()
        w.endObject()
        return w.line()
    }
}

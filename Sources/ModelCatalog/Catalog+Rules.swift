import JSONSupport
// models/rules/<channel>/<N>.json (SPEC §9.2)
extension Catalog {
    /// Every channel a release was ever published to, sorted. A channel whose releases are all
    /// paused or retired keeps a snapshot (with no releases), so its clients fall back to none.
    public var channels: [String] { Set(releases.map(\.channel)).sorted() }

    /// The rules snapshot of `channel` at `catalogVersion`:
    /// `{"v":1,"channel":C,"catalog":N,"releases":[…]}` with its active releases in catalog
    /// order. Everything `ReleaseSelector` needs, nothing the operator keeps to itself.
    public func rulesJSON(channel: String, catalogVersion: Int64, publicBaseURL: String) -> [UInt8] {
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
        return w.bytes + [UInt8(ascii: "\n")]
    }
}

import JSONSupport
import ReleaseSelection

/// What is live now (SPEC §15.1): per channel and SDK range, the share of installs each release
/// answers, from the same contenders `/latest` selects among (`ReleaseSelector`), and the
/// releases of the range that answer nobody (below a 100 % release, at 0 %, paused, retired).
/// Pure: a catalog in, a value out; `GET /admin/live`, `modelctl live` and the console show it.
public struct LiveView: Sendable, Equatable {
    public struct Serving: Sendable, Equatable {
        public let id: String
        public let label: String
        /// Of the range's clients that send a `client_id`, the fraction this release answers.
        public let share: Double
        /// Live variant names in answer order: a device matching one gets that file instead.
        public let variants: [String]
    }

    /// `[sdkMin, sdkMax)`, within which every client gets the same shares.
    public struct Range: Sendable, Equatable {
        public let sdkMin: SDKVersion
        public let sdkMax: SDKVersion?
        /// Highest seq first; the shares sum to 1, or to less when the rest gets `no_model`.
        public let serving: [Serving]
        /// Releases covering the range that answer nobody in it, highest seq first.
        public let shadowed: [String]
    }

    /// Channel name → its ranges, ascending. A channel with no release has no ranges.
    public let channels: [(name: String, ranges: [Range])]

    public static func == (a: LiveView, b: LiveView) -> Bool {
        a.channels.elementsEqual(b.channels) { $0.name == $1.name && $0.ranges == $1.ranges }
    }

    /// `only`: one channel (listed even when it has no release), else every channel of the catalog.
    public init(_ releases: [Release], only: String? = nil) {
        let names = only.map { [$0] } ?? Set(releases.map(\.channel)).sorted()
        channels = names.map { name in (name, Self.ranges(of: releases.filter { $0.channel == name }, channel: name)) }
    }

    /// The range bounds are every `sdk_min` and `sdk_max` of the channel's releases: between two
    /// neighbours the set of covering releases, and so every answer, is the same. (Two neighbours
    /// always differ: the release whose bound separates them is listed in one only.) Gaps that no
    /// release covers are left out.
    package static func ranges(of releases: [Release], channel: String) -> [Range] {
        let bounds = Set(releases.flatMap { [$0.sdkMinVersion] + ($0.sdkMaxVersion.map { [$0] } ?? []) }).sorted()
        var ranges: [Range] = []
        for (i, low) in bounds.enumerated() {
            let covering = releases.filter { $0.covers(low) }.sorted { $0.seq > $1.seq }
            guard !covering.isEmpty else { continue }
            let high = i + 1 < bounds.count ? bounds[i + 1] : nil
            let contenders = ReleaseSelector.contenders(in: covering, sdk: low, channel: channel)
            let serving = ReleaseSelector.shares(of: contenders).map { r, share in
                Serving(id: r.id, label: r.label, share: share, variants: r.variants.filter(\.isLive).map(\.name))
            }
            let servingIDs = Set(serving.map(\.id))
            ranges.append(Range(sdkMin: low, sdkMax: high, serving: serving,
                                shadowed: covering.map(\.id).filter { !servingIDs.contains($0) }))
        }
        return ranges
    }

    /// SPEC §15.1: `{"channels":{"stable":[{"sdk_min":…,"sdk_max":…|null,"serving":[{"id":…,
    /// "label":…,"share":0.9,"variants":[names]}],"shadowed":[ids]}]}}`. Bounds are normalised
    /// `M.m.p` (a bound may come from several releases, each spelling it its own way); shares
    /// are rounded to six decimals.
    public var json: [UInt8] {
        var w = JSONWriter(capacity: 1024)
        w.beginObject()
        w.key("channels")
        w.beginObject()
        for (name, ranges) in channels {
            w.key(name)
            w.beginArray()
            for range in ranges {
                w.beginObject()
                w.field("sdk_min", range.sdkMin.description)
                w.key("sdk_max")
                if let max = range.sdkMax { w.string(max.description) } else { w.null() }
                w.key("serving")
                w.beginArray()
                for s in range.serving {
                    w.beginObject()
                    w.field("id", s.id)
                    w.field("label", s.label)
                    w.key("share")
                    w.raw(Array("\((s.share * 1e6).rounded() / 1e6)".utf8))
                    w.key("variants")
                    w.stringArray(s.variants)
                    w.endObject()
                }
                w.endArray()
                w.key("shadowed")
                w.stringArray(range.shadowed)
                w.endObject()
            }
            w.endArray()
        }
        w.endObject()
        w.endObject()
        return w.bytes
    }
}

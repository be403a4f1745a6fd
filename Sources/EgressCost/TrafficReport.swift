/// Bytes and requests of some slice of the log.
public struct TrafficCounter: Equatable, Sendable {
    public var bytes: Int64 = 0
    public var requests: Int64 = 0
    public init(bytes: Int64 = 0, requests: Int64 = 0) { self.bytes = bytes; self.requests = requests }

    mutating func count(_ bytes: Int64) {
        self.bytes &+= bytes
        requests += 1
    }
}

/// Aggregates access-log records one at a time (SPEC §6, §7.2 `cost report`). Memory is
/// constant apart from the maps keyed by day, model, route and model/update-check path.
public struct TrafficReport: Sendable {
    /// Inclusive UTC day bounds `YYYY-MM-DD`; nil = unbounded.
    public let since: String?
    public let until: String?

    public private(set) var total = TrafficCounter()
    public private(set) var byDay: [String: TrafficCounter] = [:]
    public private(set) var byModel: [String: TrafficCounter] = [:]
    public private(set) var byRoute: [String: TrafficCounter] = [:]
    public private(set) var notModified: Int64 = 0
    /// 206 responses: resumed or partial downloads.
    public private(set) var rangeResumes = TrafficCounter()

    /// Largest full (non-range) 200 body per path of the `latest` and `models` routes: the
    /// bytes a 304 on that path did not re-send. Bounded by the number of model files.
    private var fullSize: [String: Int64] = [:]
    private var notModifiedByPath: [String: Int64] = [:]

    public init(since: String? = nil, until: String? = nil) {
        self.since = since
        self.until = until
    }

    /// Counts `record` unless its day lies outside `since…until`; returns whether it counted.
    @discardableResult
    public mutating func add(_ record: EgressLogRecord) -> Bool {
        let day = String(record.day)
        if let since, day < since { return false }
        if let until, day > until { return false }
        total.count(record.bytes)
        byDay[day, default: TrafficCounter()].count(record.bytes)
        byRoute[record.route, default: TrafficCounter()].count(record.bytes)
        if let model = record.modelID { byModel[model, default: TrafficCounter()].count(record.bytes) }
        let tracksSize = record.route == "models" || record.route == "latest"
        switch record.status {
        case 304:
            notModified += 1
            if tracksSize { notModifiedByPath[record.path, default: 0] += 1 }
        case 206:
            rangeResumes.count(record.bytes)
        case 200 where tracksSize && !record.range:
            fullSize[record.path] = max(fullSize[record.path] ?? 0, record.bytes)
        default:
            break
        }
        return true
    }

    /// Bytes the 304s did not re-send, estimated as the full-size 200 body of the same path;
    /// `unknown` counts 304s on paths with no full 200 in the log (not estimated).
    public var bytesSaved: (bytes: Int64, unknown: Int64) {
        var saved: Int64 = 0
        var unknown = notModified - notModifiedByPath.values.reduce(0, +)
        for (path, count) in notModifiedByPath {
            if let size = fullSize[path], size > 0 { saved &+= size &* count } else { unknown += count }
        }
        return (saved, unknown)
    }

    /// Days with at least one record.
    public var coveredDays: Int { byDay.count }

    /// Mean daily bytes and requests of the covered days × 30, rounded half-up.
    public var monthlyProjection: Traffic {
        guard coveredDays > 0 else { return Traffic(bytes: 0, requests: 0) }
        let days = Int128(coveredDays), month = Int128(EstimateInputs.daysPerMonth)
        func project(_ v: Int64) -> Int64 { Int64(min(Int128(Int64.max), (2 * Int128(v) * month + days) / (2 * days))) }
        return Traffic(bytes: project(total.bytes), requests: project(total.requests))
    }

    /// Everything a renderer prints, with the observed traffic priced as one month and the
    /// projection priced as a month.
    public func summary(providers: [ProviderPricing], freeTier: Bool = true, gbUnit: GBUnit = .provider) -> ReportSummary {
        func rows(_ map: [String: TrafficCounter]) -> [ReportSummary.Row] {
            map.map { ReportSummary.Row(key: $0.key, traffic: $0.value) }
                .sorted { ($1.traffic.bytes, $0.key) < ($0.traffic.bytes, $1.key) }
        }
        func price(_ t: Traffic) -> [ProviderCost] {
            Estimator.cheapestFirst(providers.map { Estimator.cost(of: t, on: $0, freeTier: freeTier, gbUnit: gbUnit) })
        }
        let days = byDay.keys.sorted()
        let saved = bytesSaved
        return ReportSummary(
            since: since, until: until, firstDay: days.first, lastDay: days.last, coveredDays: coveredDays,
            total: total,
            byDay: days.map { ReportSummary.Row(key: $0, traffic: byDay[$0]!) },
            byModel: rows(byModel), byRoute: rows(byRoute),
            notModified: notModified, bytesSaved: saved.bytes, notModifiedUnknownSize: saved.unknown,
            rangeResumes: rangeResumes, projection: monthlyProjection,
            freeTier: freeTier, gbUnit: gbUnit,
            cost: price(Traffic(bytes: total.bytes, requests: total.requests)),
            projectedCost: price(monthlyProjection))
    }
}

/// A finished report, ready to render.
public struct ReportSummary: Equatable, Sendable {
    public struct Row: Equatable, Sendable {
        public var key: String
        public var traffic: TrafficCounter
    }

    public var since: String?
    public var until: String?
    public var firstDay: String?
    public var lastDay: String?
    public var coveredDays: Int
    public var total: TrafficCounter
    /// Chronological.
    public var byDay: [Row]
    /// Largest first.
    public var byModel: [Row]
    public var byRoute: [Row]
    public var notModified: Int64
    public var bytesSaved: Int64
    public var notModifiedUnknownSize: Int64
    public var rangeResumes: TrafficCounter
    public var projection: Traffic
    public var freeTier: Bool
    public var gbUnit: GBUnit
    /// The logged traffic priced as if it were one month, cheapest first.
    public var cost: [ProviderCost]
    /// The monthly projection priced, cheapest first.
    public var projectedCost: [ProviderCost]
}

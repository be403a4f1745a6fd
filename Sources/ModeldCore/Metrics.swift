// The metrics of SPEC §4.4. Recording is a relaxed atomic add into a table allocated up front
// (routes × every status 100-599), so loop threads never lock or allocate; `render()` reads it
// all for GET /metrics.
import Synchronization

public final class Metrics: Sendable {
    /// Content-Type of `render()`'s output.
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"
    /// fsync latencies from 100 µs (SSD) to 10 s (a struggling network volume).
    public static let fsyncBuckets: [Double] = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10]

    private static let statuses = 100..<600
    /// One slot past the statuses for anything outside 100-599 (rendered as status="other").
    private static let statusSlots = statuses.count + 1

    private let version: String
    /// routes × status slots.
    private let requests = MetricsCounterTable(count: MetricsRoute.allCases.count * Metrics.statusSlots)
    private let responseBodyBytes = MetricsCounterTable(count: MetricsRoute.allCases.count)
    private let scalars = MetricsCounterTable(count: Scalar.allCases.count)
    private let fsyncSeconds = MetricsHistogram(bounds: Metrics.fsyncBuckets)
    private let openConnections = Mutex<@Sendable () -> Int>({ 0 })
    /// The guard evaluator's last figures per release and its decisions per (release, rule)
    /// (SPEC §11.5); written once per evaluation on its thread, never by a loop.
    private let guards = Mutex<[String: GuardGauges]>([:])
    private let guardDecisions = Mutex<[String: [String: Int]]>([:])

    struct GuardGauges: Sendable {
        var treatmentClients: Int
        var controlClients: Int
        var delta: Double?
        var bound: Double?
    }

    /// Single-valued metrics, one cell each in `scalars`.
    private enum Scalar: Int, CaseIterable {
        case eventsAccepted, eventsDuplicate, eventsRejected, eventBatches, eventCommits
        case catalogReloads, catalogReloadFailures, catalogReleases, publishes, accessLogDropped, guardSkippedLines
        case catalogPolls, guardIntervals, signingRefused, channelChecks
        case segmentsShipped, shipFailures, guardShippedSegments
    }

    public init(version: String) {
        self.version = version
    }

    // MARK: - Recording (any thread)

    /// Where `modeld_open_connections` is read from (the server, once it exists).
    public func setOpenConnectionsSource(_ source: @escaping @Sendable () -> Int) {
        openConnections.withLock { $0 = source }
    }

    /// One finished exchange; `bodyBytes` = body bytes the kernel accepted.
    @inline(__always)
    public func recordRequest(route: MetricsRoute, status: Int, bodyBytes: Int64) {
        let slot = Self.statuses.contains(status) ? status - Self.statuses.lowerBound : Self.statusSlots - 1
        requests.add(route.rawValue * Self.statusSlots + slot)
        if bodyBytes > 0 { responseBodyBytes.add(route.rawValue, Int(bodyBytes)) }
    }

    /// Events of one batch by outcome (a duplicate batch counts its events as duplicate).
    public func recordEvents(accepted: Int = 0, duplicate: Int = 0, rejected: Int = 0) {
        if accepted > 0 { add(.eventsAccepted, accepted) }
        if duplicate > 0 { add(.eventsDuplicate, duplicate) }
        if rejected > 0 { add(.eventsRejected, rejected) }
    }

    public func recordEventBatch() { add(.eventBatches) }

    /// The channels a `POST /check` answered (SPEC §17.2: one update check each).
    func recordChannelChecks(_ channels: Int) { add(.channelChecks, channels) }

    /// One group commit: one fdatasync covering one or more batches.
    public func recordEventCommit(fsyncNanoseconds: Int) {
        add(.eventCommits)
        fsyncSeconds.observe(nanoseconds: fsyncNanoseconds)
    }

    public func recordCatalogReload(releases: Int) {
        add(.catalogReloads)
        scalars.set(Scalar.catalogReleases.rawValue, releases)
    }

    /// One check of catalog.json for a change: lets a test wait for "N more polls" rather than sleep.
    public func recordCatalogPoll() { add(.catalogPolls) }

    /// A changed catalog that was refused (corrupt); the old one stays.
    public func recordCatalogReloadFailure() { add(.catalogReloadFailures) }

    public func recordPublish() { add(.publishes) }

    public func recordAccessLogDropped(_ records: Int) { add(.accessLogDropped, records) }

    /// A derived snapshot not signed because its file holds other bytes (SPEC §12.1).
    public func recordSigningRefused() { add(.signingRefused) }

    func recordGuard(release: String, _ gauges: GuardGauges?) { guards.withLock { $0[release] = gauges } }

    func recordGuardSkippedLines(_ lines: Int) { add(.guardSkippedLines, lines) }

    /// SPEC §18: segments this instance shipped, failed passes, bucket objects the guard read.
    func recordSegmentsShipped(_ n: Int) { add(.segmentsShipped, n) }
    func recordShipFailure() { add(.shipFailures) }
    func recordGuardShippedSegments(_ n: Int) { add(.guardShippedSegments, n) }

    /// One interval of the guard evaluator, whether this instance holds the lock or stands by.
    func recordGuardInterval() { add(.guardIntervals) }

    func recordGuardDecision(release: String, rule: String) {
        guardDecisions.withLock { $0[release, default: [:]][rule, default: 0] += 1 }
    }

    private func add(_ scalar: Scalar, _ amount: Int = 1) { scalars.add(scalar.rawValue, amount) }
    private func value(_ scalar: Scalar) -> Int { scalars.value(scalar.rawValue) }

    // MARK: - Exposition

    public func render() -> String {
        var out = MetricsTextWriter()
        out.family("modeld_http_requests_total", .counter, help: "HTTP requests finished, by route and status.")
        for route in MetricsRoute.allCases {
            for slot in 0..<Self.statusSlots {
                let count = requests.value(route.rawValue * Self.statusSlots + slot)
                guard count > 0 else { continue }
                let status = slot < Self.statuses.count ? String(Self.statuses.lowerBound + slot) : "other"
                out.sample("modeld_http_requests_total", labels: ["route": route.name, "status": status], count)
            }
        }
        out.family("modeld_http_response_body_bytes_total", .counter, help: "Response body bytes accepted by the kernel, by route.")
        for route in MetricsRoute.allCases {
            out.sample("modeld_http_response_body_bytes_total", labels: ["route": route.name], responseBodyBytes.value(route.rawValue))
        }
        out.single("modeld_open_connections", .gauge, help: "Client connections currently open.", openConnections.withLock { $0 }())
        out.single("modeld_check_channels_total", .counter,
                   help: "Channels answered by POST /check; each is one update check (a /latest check is one request).", value(.channelChecks))
        out.family("modeld_events_total", .counter, help: "Outcome events received, by result.")
        out.sample("modeld_events_total", labels: ["result": "accepted"], value(.eventsAccepted))
        out.sample("modeld_events_total", labels: ["result": "duplicate"], value(.eventsDuplicate))
        out.sample("modeld_events_total", labels: ["result": "rejected"], value(.eventsRejected))
        out.single("modeld_event_batches_total", .counter, help: "Event batches received.", value(.eventBatches))
        out.single("modeld_event_commits_total", .counter, help: "Event store group commits (fdatasyncs).", value(.eventCommits))
        out.family("modeld_fsync_seconds", .histogram, help: "Duration of event store fdatasyncs.")
        out.histogram("modeld_fsync_seconds", fsyncSeconds)
        out.single("modeld_catalog_reloads_total", .counter, help: "Catalog loads from disk that were applied.", value(.catalogReloads))
        out.single("modeld_catalog_reload_failures_total", .counter,
                   help: "Changed catalogs refused as corrupt (the old one is kept).", value(.catalogReloadFailures))
        out.single("modeld_catalog_polls_total", .counter, help: "Checks of catalog.json for a change.", value(.catalogPolls))
        out.single("modeld_catalog_releases", .gauge, help: "Releases in the loaded catalog.", value(.catalogReleases))
        out.single("modeld_publishes_total", .counter, help: "Models published through this instance.", value(.publishes))
        out.single("modeld_access_log_dropped_total", .counter,
                   help: "Access-log records dropped because the writer fell behind or failed.", value(.accessLogDropped))
        out.single("modeld_signing_refused_total", .counter,
                   help: "Derived snapshots not signed because the file for their version holds other bytes (the previous pointer is kept).", value(.signingRefused))
        renderGuards(&out)
        out.single("modeld_build_info", .gauge, help: "Build information; the value is always 1.", labels: ["version": version], 1)
        return out.text
    }

    /// Only the evaluating instance has samples (SPEC §11.4: one instance evaluates).
    private func renderGuards(_ out: inout MetricsTextWriter) {
        let gauges = guards.withLock { $0 }.sorted { $0.key < $1.key }
        out.family("modeld_guard_clients", .gauge, help: "Clients counted in each arm of a running guard.")
        for (release, g) in gauges {
            out.sample("modeld_guard_clients", labels: ["release": release, "arm": "treatment"], g.treatmentClients)
            out.sample("modeld_guard_clients", labels: ["release": release, "arm": "control"], g.controlClients)
        }
        out.family("modeld_guard_delta", .gauge, help: "Treatment mean minus control mean of a running guard.")
        for (release, g) in gauges { if let d = g.delta { out.sample("modeld_guard_delta", labels: ["release": release], d) } }
        out.family("modeld_guard_bound", .gauge, help: "Half-width of the one-sided sequential bound on the guard's delta.")
        for (release, g) in gauges { if let b = g.bound { out.sample("modeld_guard_bound", labels: ["release": release], b) } }
        out.single("modeld_guard_skipped_lines_total", .counter,
                   help: "Event segment lines the guard evaluator could not read (torn, foreign or uncommitted groups).", value(.guardSkippedLines))
        out.single("modeld_events_segments_shipped_total", .counter,
                   help: "Sealed event segments this instance shipped to events_ship's bucket.", value(.segmentsShipped))
        out.single("modeld_events_ship_failures_total", .counter,
                   help: "Shipping passes that failed (retried at the next pass).", value(.shipFailures))
        out.single("modeld_guard_shipped_segments_read_total", .counter,
                   help: "Shipped segments the guard evaluator read from guard_events_from.", value(.guardShippedSegments))
        out.single("modeld_guard_intervals_total", .counter,
                   help: "Guard evaluator intervals run, holding data/guard.lock or standing by.", value(.guardIntervals))
        out.family("modeld_guard_decisions_total", .counter, help: "Guard decisions recorded by this instance, by release and rule.")
        for (release, rules) in guardDecisions.withLock({ $0 }).sorted(by: { $0.key < $1.key }) {
            for (rule, n) in rules.sorted(by: { $0.key < $1.key }) {
                out.sample("modeld_guard_decisions_total", labels: ["release": release, "rule": rule], n)
            }
        }
    }
}

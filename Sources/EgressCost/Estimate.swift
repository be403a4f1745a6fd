/// A month of traffic: body bytes sent and requests (each billed as a read).
public struct Traffic: Equatable, Sendable {
    public var bytes: Int64
    public var requests: Int64
    public init(bytes: Int64, requests: Int64) { self.bytes = bytes; self.requests = requests }
}

/// Inputs that cannot be priced (negative, or beyond 64-bit byte counts).
public struct EstimateError: Error, Equatable, CustomStringConvertible {
    public let message: String
    public var description: String { message }
    public init(message: String) { self.message = message }
}

/// What `modelctl cost estimate` prices (SPEC §7.2). The period is one month: the
/// downloads happen in it and every install polls `pollsPerDay` times on each of 30 days.
public struct EstimateInputs: Equatable, Sendable {
    /// Bytes of one update check when no server is asked: a typical §4.1 body
    /// (~280 bytes of JSON) plus a little slack for a longer label or URL.
    public static let defaultPollBytes: Int64 = 300
    public static let daysPerMonth: Int64 = 30

    public var downloads: Int64
    public var sizeBytes: Int64
    public var installs: Int64
    public var pollsPerDay: Int64
    public var pollBytes: Int64
    public var freeTier: Bool
    public var gbUnit: GBUnit
    /// The share of checks a CDN answers from its cache (default none: every check reaches the origin).
    public var cdnHitRatio: HitRatio
    public var checkMode: CheckMode
    /// What the operator pays a month for modeld's machines (replicas, ingest-only replicas,
    /// workers): the estimator cannot know it, so it is stated, and added to every row.
    public var serverMonthly: Money
    /// Whose egress ladder prices the check answers leaving modeld's host in server mode.
    public var serverEgress: ProviderPricing?
    /// The share of a model file's bytes a download transfers (SPEC §16: packed files and
    /// patches; `--transfer-ratio`); all of them by default. A share like the CDN's, hence the type.
    public var transferRatio = HitRatio.all
    /// Models (channels) each install checks at every poll (SPEC §17.2).
    public var modelsPerInstall: Int64 = 1
    /// One request per poll for all of them (`POST /check`, or the rules index in static mode)
    /// instead of one per model.
    public var batched = false

    /// Bytes one download transfers: the size × the transfer ratio, rounded half-up.
    public var downloadBytes: Int64 { transferRatio.hits(of: sizeBytes) }

    public init(downloads: Int64, sizeBytes: Int64, installs: Int64 = 0, pollsPerDay: Int64 = 0,
                pollBytes: Int64 = defaultPollBytes, freeTier: Bool = true, gbUnit: GBUnit = .provider,
                cdnHitRatio: HitRatio = .none, checkMode: CheckMode = .static, serverMonthly: Money = .zero,
                serverEgress: ProviderPricing? = nil) {
        self.downloads = downloads; self.sizeBytes = sizeBytes; self.installs = installs
        self.pollsPerDay = pollsPerDay; self.pollBytes = pollBytes; self.freeTier = freeTier; self.gbUnit = gbUnit
        self.cdnHitRatio = cdnHitRatio; self.checkMode = checkMode; self.serverMonthly = serverMonthly
        self.serverEgress = serverEgress
    }

    public var polls: Int64 { installs &* pollsPerDay &* Self.daysPerMonth }
    /// Update-check requests in the month: one per model per poll, or one per poll when batched.
    public var checks: Int64 { polls &* (batched ? 1 : modelsPerInstall) }
    /// Body bytes of one check request: one answer, or a batched one carrying an answer per
    /// model (docs/decisions/cost.md): batching saves requests, not bytes.
    public var checkBytes: Int64 { batched ? modelsPerInstall &* pollBytes : pollBytes }

    /// Downloads × size plus checks × check bytes; one request per download and per check.
    public func traffic() throws(EstimateError) -> Traffic {
        let named = [("downloads", downloads), ("size", sizeBytes), ("installs", installs),
                     ("polls per day", pollsPerDay), ("poll bytes", pollBytes)]
        for (name, v) in named where v < 0 { throw EstimateError(message: "\(name) must not be negative") }
        guard modelsPerInstall >= 1 else { throw EstimateError(message: "models per install must be at least 1") }
        let polls = Int128(installs) * Int128(pollsPerDay) * Int128(Self.daysPerMonth)
        let checks = polls * (batched ? 1 : Int128(modelsPerInstall))
        let checkBytes = Int128(pollBytes) * (batched ? Int128(modelsPerInstall) : 1)
        let bytes = Int128(downloads) * Int128(downloadBytes) + checks * checkBytes
        let requests = Int128(downloads) + checks
        guard bytes <= Int128(Int64.max), requests <= Int128(Int64.max) else {
            throw EstimateError(message: "traffic too large to price (more than 9.2 EB a month)")
        }
        return Traffic(bytes: Int64(bytes), requests: Int64(requests))
    }
}

/// One provider's bill for a month of traffic. Each line is rounded half-up to cents and
/// the total is the sum of the rounded lines (SPEC §7.2).
public struct ProviderCost: Equatable, Sendable {
    public var id: String
    public var name: String
    public var asOf: String
    /// False when the prices are unverified or the traffic ran past the last published tier.
    public var verified: Bool
    public var bytesPerGB: Int64
    public var egressBytes: Int64
    public var egress: Money
    public var requests: Money
    public var fixed: Money
    /// Update checks billed on this provider (each one read request), out of all checks.
    public var checksBilled: Int64 = 0
    /// Bytes of check answers that left modeld's host (server mode's cache misses).
    public var serverEgressBytes: Int64 = 0
    /// The stated server cost plus that egress.
    public var server: Money = .zero

    public var total: Money { egress + requests + fixed + server }

    /// Egress in the GB used for billing, rounded half-up to `places` decimals.
    public func egressGB(places: Int) -> String {
        FixedPoint.format(Int128(egressBytes), over: Int128(bytesPerGB), places: places)
    }
}

/// Per-provider costs, cheapest first.
public struct Estimate: Equatable, Sendable {
    public var inputs: EstimateInputs
    public var traffic: Traffic
    public var providers: [ProviderCost]
}

public enum Estimator {
    /// Prices `traffic` on one provider: free allowances first, then the graduated ladder.
    public static func cost(of traffic: Traffic, on provider: ProviderPricing, freeTier: Bool, gbUnit: GBUnit) -> ProviderCost {
        let bytesPerGB = gbUnit.bytesPerGB(for: provider)
        let free = freeTier ? provider.freeTier : .none
        let freeBytes = Int128(free.egressGB) * Int128(bytesPerGB)
        let billedBytes = Int64(max(0, Int128(traffic.bytes) - freeBytes))
        let billedRequests = max(0, traffic.requests - free.requests(ProviderPricing.readKind))
        let beyond = provider.egress.split(bytes: billedBytes, bytesPerGB: bytesPerGB).beyondPublished
        return ProviderCost(
            id: provider.id, name: provider.name, asOf: provider.asOf,
            verified: provider.verified && !beyond, bytesPerGB: bytesPerGB, egressBytes: traffic.bytes,
            egress: provider.egress.cost(bytes: billedBytes, bytesPerGB: bytesPerGB),
            requests: provider.readPrice.cost(billedRequests),
            fixed: provider.fixedMonthly)
    }

    /// Prices the month on each provider. Downloads always come from the provider; each update
    /// check lands where `CheckRouting` sends it for that provider, and every row carries the
    /// stated server cost, so static and server mode compare on their whole bills.
    public static func estimate(_ inputs: EstimateInputs, providers: [ProviderPricing]) throws(EstimateError) -> Estimate {
        let traffic = try inputs.traffic()
        let costs = try providers.map { (p) throws(EstimateError) -> ProviderCost in
            let checks = CheckRouting.route(checks: inputs.checks, hitRatio: inputs.cdnHitRatio, mode: inputs.checkMode,
                                            providerIsCDN: p.isCDN)
            // Both fit: each is at most the whole traffic, which `traffic()` bounded.
            let own = Traffic(bytes: inputs.downloads * inputs.downloadBytes + checks.atProvider * inputs.checkBytes,
                              requests: inputs.downloads + checks.atProvider)
            var c = cost(of: own, on: p, freeTier: inputs.freeTier, gbUnit: inputs.gbUnit)
            c.checksBilled = checks.atProvider
            c.serverEgressBytes = checks.atServer * inputs.checkBytes
            c.server = inputs.serverMonthly
            if c.serverEgressBytes > 0 {
                guard let host = inputs.serverEgress else {
                    throw EstimateError(message: "server mode needs a price for the server's egress")
                }
                // No free allowance: it is account-wide, and the downloads already used it.
                let perGB = inputs.gbUnit.bytesPerGB(for: host)
                c.server = c.server + host.egress.cost(bytes: c.serverEgressBytes, bytesPerGB: perGB)
                c.verified = c.verified && host.verified
                    && !host.egress.split(bytes: c.serverEgressBytes, bytesPerGB: perGB).beyondPublished
            }
            return c
        }
        return Estimate(inputs: inputs, traffic: traffic, providers: cheapestFirst(costs))
    }

    /// The seam for `modelctl cost rollout ID --installs N` (SPEC §7.2): one release of
    /// `sizeBytes` reaching `rolloutPercent` of `installs`, each downloading it once this month.
    /// Downloads round up: 1 % of 150 installs is 2 downloads, not 1.5.
    public static func rollout(sizeBytes: Int64, installs: Int64, rolloutPercent: Int, providers: [ProviderPricing],
                               freeTier: Bool = true, gbUnit: GBUnit = .provider, transferRatio: HitRatio = .all) throws(EstimateError) -> Estimate {
        guard (0...100).contains(rolloutPercent) else { throw EstimateError(message: "rollout percent must be 0–100") }
        guard installs >= 0 else { throw EstimateError(message: "installs must not be negative") }
        let downloads = (Int128(installs) * Int128(rolloutPercent) + 99) / 100
        var inputs = EstimateInputs(downloads: Int64(downloads), sizeBytes: sizeBytes, freeTier: freeTier, gbUnit: gbUnit)
        inputs.transferRatio = transferRatio
        return try estimate(inputs, providers: providers)
    }

    static func cheapestFirst(_ costs: [ProviderCost]) -> [ProviderCost] {
        costs.sorted { ($0.total, $0.id) < ($1.total, $1.id) }
    }
}

import JSONSupport

/// How bytes become billed GB.
public enum GBUnit: String, CaseIterable, Sendable {
    /// Each provider's own unit (`gb_bytes` in pricing.json): what its invoice shows.
    case provider
    /// 10^9 bytes for every provider.
    case si
    /// 2^30 bytes for every provider.
    case binary

    public func bytesPerGB(for provider: ProviderPricing) -> Int64 {
        switch self {
        case .provider: provider.gbBytes
        case .si: 1_000_000_000
        case .binary: 1 << 30
        }
    }
}

/// A per-request price. Providers publish per 1,000, per 10,000 or per million; R2 bills
/// whole units rounded up (1,000,001 reads are billed as 2 million), others prorate.
public struct RequestPrice: Equatable, Sendable {
    public var perMillion: Rate
    public var billingUnit: Int64
    public var roundsUpToBillingUnit: Bool

    public init(perMillion: Rate, billingUnit: Int64 = 1, roundsUpToBillingUnit: Bool = false) {
        self.perMillion = perMillion
        self.billingUnit = billingUnit
        self.roundsUpToBillingUnit = roundsUpToBillingUnit
    }

    /// The requests actually billed after rounding `count` to the billing unit.
    public func billed(_ count: Int64) -> Int64 {
        guard roundsUpToBillingUnit, billingUnit > 1, count > 0 else { return count }
        return (count + billingUnit - 1) / billingUnit * billingUnit
    }

    public func cost(_ count: Int64) -> Money {
        // nano-dollars per million × requests / 10^6 = nano-dollars; 10^7 nano-dollars = 1 cent.
        Money.roundingHalfUp(cents: Int128(billed(count)) * Int128(perMillion.nanoUSD), over: 1_000_000 * 10_000_000)
    }
}

/// Monthly allowances taken off before the tiers (SPEC §7.2). Per-day allowances (B2)
/// count 30 days, the estimator's month.
public struct FreeTier: Equatable, Sendable {
    public var egressGB: Int64
    public var requestsPerMonth: [String: Int64]
    public var requestsPerDay: [String: Int64]

    public init(egressGB: Int64 = 0, requestsPerMonth: [String: Int64] = [:], requestsPerDay: [String: Int64] = [:]) {
        self.egressGB = egressGB
        self.requestsPerMonth = requestsPerMonth
        self.requestsPerDay = requestsPerDay
    }

    public static let none = FreeTier()

    public func requests(_ kind: String) -> Int64 {
        (requestsPerMonth[kind] ?? 0) + (requestsPerDay[kind] ?? 0) * 30
    }
}

/// One provider's published prices.
public struct ProviderPricing: Equatable, Sendable {
    /// The request kind a download or an update check is billed as (a GET).
    public static let readKind = "read"

    public var id: String
    public var name: String
    public var gbBytes: Int64
    public var egress: TierSchedule
    public var requests: [String: RequestPrice]
    public var freeTier: FreeTier
    public var storagePerGBMonth: Rate?
    public var fixedMonthly: Money
    /// A CDN bills every request it answers, cache hit or not; a bucket behind a CDN sees only
    /// the misses (`"cdn": true` in pricing.json).
    public var isCDN: Bool
    /// False when any number of this entry is unverified in the research (shown as `*`).
    public var verified: Bool
    public var source: String
    public var asOf: String

    public init(id: String, name: String, gbBytes: Int64, egress: TierSchedule, requests: [String: RequestPrice],
                freeTier: FreeTier = .none, storagePerGBMonth: Rate? = nil, fixedMonthly: Money = .zero,
                isCDN: Bool = false, verified: Bool = true, source: String = "", asOf: String = "") {
        self.id = id; self.name = name; self.gbBytes = gbBytes; self.egress = egress; self.requests = requests
        self.freeTier = freeTier; self.storagePerGBMonth = storagePerGBMonth; self.fixedMonthly = fixedMonthly
        self.isCDN = isCDN; self.verified = verified; self.source = source; self.asOf = asOf
    }

    public var readPrice: RequestPrice { requests[Self.readKind]! }
}

/// A pricing file that cannot be used, naming the provider and field at fault.
public struct PricingError: Error, Equatable, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}

/// Every provider of `config/pricing.json`, in file order.
public struct PriceTable: Equatable, Sendable {
    public var providers: [ProviderPricing]

    public init(providers: [ProviderPricing]) { self.providers = providers }

    public func provider(id: String) -> ProviderPricing? { providers.first { $0.id == id } }

    /// Parses the pricing file format documented in docs/decisions/cost.md.
    public static func parse(json text: String) throws(PricingError) -> PriceTable {
        let source = Array(text.utf8)
        let root: JSONNode
        do { root = try JSONReader.parse(source) } catch { throw PricingError(message: "pricing file: \(error)") }
        guard case .array(let list)? = root["providers"]?.value else {
            throw PricingError(message: "pricing file: 'providers' must be an array")
        }
        var providers: [ProviderPricing] = []
        for (i, entry) in list.enumerated() {
            guard case .string(let id)? = entry["id"]?.value, !id.isEmpty else {
                throw PricingError(message: "pricing file: providers[\(i)]: field 'id' is missing or not a string")
            }
            let p = try ProviderReader(id: id, entry: entry, source: source).read()
            guard !providers.contains(where: { $0.id == id }) else {
                throw PricingError(message: "pricing file: provider '\(id)' appears twice")
            }
            providers.append(p)
        }
        guard !providers.isEmpty else { throw PricingError(message: "pricing file: no providers") }
        return PriceTable(providers: providers)
    }
}

/// Reads one provider entry; every error names the provider and the field. Prices and counts
/// are read from their literal text in `source`, exactly.
private struct ProviderReader {
    let id: String
    let entry: JSONNode
    let source: [UInt8]

    func fail(_ field: String, _ problem: String) -> PricingError {
        PricingError(message: "pricing file: provider '\(id)': field '\(field)' \(problem)")
    }

    func value(_ v: JSONNode?, _ field: String) throws(PricingError) -> JSONNode {
        guard let v, !v.isNull else { throw fail(field, "is missing or null") }
        return v
    }

    func string(_ v: JSONNode?, _ field: String) throws(PricingError) -> String {
        guard case .string(let s) = try value(v, field).value else { throw fail(field, "must be a string") }
        return s
    }

    func rate(_ v: JSONNode?, _ field: String) throws(PricingError) -> Rate {
        let v = try value(v, field)
        guard case .number = v.value, let r = Rate(decimal: v.literal(in: source)) else {
            throw fail(field, "must be a non-negative decimal price with at most 9 decimals")
        }
        return r
    }

    func integer(_ v: JSONNode?, _ field: String) throws(PricingError) -> Int64 {
        let v = try value(v, field)
        guard let i = v.integer(in: source), i >= 0 else {
            throw fail(field, "must be a non-negative whole number")
        }
        return i
    }

    func counts(_ v: JSONNode?, _ field: String) throws(PricingError) -> [String: Int64] {
        guard let v else { return [:] }
        guard case .object(let members) = v.value else { throw fail(field, "must be an object of request kind → count") }
        var out: [String: Int64] = [:]
        for (kind, n) in members { out[kind] = try integer(n, "\(field).\(kind)") }
        return out
    }

    func read() throws(PricingError) -> ProviderPricing {
        let gbBytes = try integer(entry["gb_bytes"], "gb_bytes")
        guard gbBytes == 1_000_000_000 || gbBytes == 1 << 30 else { throw fail("gb_bytes", "must be 1000000000 or 1073741824") }

        guard case .array(let tierList) = try value(entry["egress_tiers"], "egress_tiers").value else {
            throw fail("egress_tiers", "must be an array")
        }
        var tiers: [TierSchedule.Tier] = []
        for (i, t) in tierList.enumerated() {
            let bound: Int64? = t["up_to_gb"]?.isNull ?? true ? nil : try integer(t["up_to_gb"], "egress_tiers[\(i)].up_to_gb")
            tiers.append(.init(upToGB: bound, perGB: try rate(t["usd_per_gb"], "egress_tiers[\(i)].usd_per_gb")))
        }
        guard let schedule = TierSchedule(tiers) else {
            throw fail("egress_tiers", "must be non-empty with increasing up_to_gb and only the last one open (null)")
        }

        guard case .object(let requestMembers) = try value(entry["request_prices"], "request_prices").value else {
            throw fail("request_prices", "must be an object keyed by request kind")
        }
        var requests: [String: RequestPrice] = [:]
        for (kind, r) in requestMembers {
            let unit = r["billing_unit"] == nil ? 1 : try integer(r["billing_unit"], "request_prices.\(kind).billing_unit")
            guard unit >= 1 else { throw fail("request_prices.\(kind).billing_unit", "must be at least 1") }
            requests[kind] = RequestPrice(
                perMillion: try rate(r["usd_per_million"], "request_prices.\(kind).usd_per_million"),
                billingUnit: unit,
                roundsUpToBillingUnit: r["round_up_to_billing_unit"]?.value.boolValue == true)
        }
        guard requests[ProviderPricing.readKind] != nil else {
            throw fail("request_prices.read.usd_per_million", "is missing or null (write 0 when reads are free)")
        }

        let free = entry["free_tier"]
        let freeTier = FreeTier(
            egressGB: free?["egress_gb_per_month"] == nil ? 0 : try integer(free?["egress_gb_per_month"], "free_tier.egress_gb_per_month"),
            requestsPerMonth: try counts(free?["requests_per_month"], "free_tier.requests_per_month"),
            requestsPerDay: try counts(free?["requests_per_day"], "free_tier.requests_per_day"))

        // Storage is optional (a CDN stores nothing), but when present it must be a price.
        let storage: Rate? = entry["storage_usd_per_gb_month"] == nil ? nil : try rate(entry["storage_usd_per_gb_month"], "storage_usd_per_gb_month")
        let fixed = entry["fixed_monthly_usd"] == nil ? Rate(nanoUSD: 0) : try rate(entry["fixed_monthly_usd"], "fixed_monthly_usd")
        guard fixed.nanoUSD % 10_000_000 == 0 else { throw fail("fixed_monthly_usd", "must be whole cents") }

        guard case .bool(let verified) = try value(entry["verified"], "verified").value else { throw fail("verified", "must be true or false") }
        var isCDN = false
        if let cdn = entry["cdn"] {
            guard case .bool(let b) = cdn.value else { throw fail("cdn", "must be true or false") }
            isCDN = b
        }

        return ProviderPricing(
            id: id, name: try string(entry["name"], "name"), gbBytes: gbBytes, egress: schedule, requests: requests,
            freeTier: freeTier, storagePerGBMonth: storage, fixedMonthly: Money(cents: fixed.nanoUSD / 10_000_000),
            isCDN: isCDN, verified: verified, source: try string(entry["source"], "source"), asOf: try string(entry["as_of"], "as_of"))
    }
}

/// A graduated price ladder: each GB is billed at the rate of the band it falls in.
/// Bounds are cumulative and in the provider's published GB; the caller chooses how many
/// bytes make a GB (the provider's own unit, or a `--gb-unit` override).
public struct TierSchedule: Equatable, Sendable {
    public struct Tier: Equatable, Sendable {
        /// Cumulative upper bound in GB; nil = no upper bound.
        public var upToGB: Int64?
        public var perGB: Rate
        public init(upToGB: Int64?, perGB: Rate) { self.upToGB = upToGB; self.perGB = perGB }
    }

    /// The bytes billed at one rate.
    public struct Band: Equatable, Sendable {
        public var bytes: Int64
        public var perGB: Rate
    }

    public let tiers: [Tier]

    /// Nil unless there is at least one tier, bounds increase strictly and only the last is open.
    public init?(_ tiers: [Tier]) {
        guard !tiers.isEmpty else { return nil }
        var previous: Int64 = 0
        for (i, tier) in tiers.enumerated() {
            if let bound = tier.upToGB {
                guard bound > previous else { return nil }
                previous = bound
            } else if i != tiers.count - 1 {
                return nil
            }
        }
        self.tiers = tiers
    }

    /// Splits `bytes` across the bands. Bytes past a last *bounded* tier ("contact sales")
    /// are priced at the last published rate and reported by `beyondPublished`.
    public func split(bytes: Int64, bytesPerGB: Int64) -> (bands: [Band], beyondPublished: Bool) {
        var bands: [Band] = []
        var lower: Int128 = 0
        let total = Int128(bytes)
        for tier in tiers {
            guard total > lower else { break }
            let upper = tier.upToGB.map { Int128($0) * Int128(bytesPerGB) } ?? total
            let inBand = min(total, upper) - lower
            if inBand > 0 { bands.append(Band(bytes: Int64(inBand), perGB: tier.perGB)) }
            lower = upper
        }
        let beyond = total > lower
        if beyond, let last = tiers.last {
            bands.append(Band(bytes: Int64(total - lower), perGB: last.perGB))
        }
        return (bands, beyond)
    }

    /// The graduated cost of `bytes`, summed exactly and rounded half-up to cents once.
    public func cost(bytes: Int64, bytesPerGB: Int64) -> Money {
        let nanoTimesBytes = split(bytes: bytes, bytesPerGB: bytesPerGB).bands
            .reduce(Int128(0)) { $0 + Int128($1.bytes) * Int128($1.perGB.nanoUSD) }
        // nano-dollars per GB × bytes / (bytes per GB) = nano-dollars; 10^7 nano-dollars = 1 cent.
        return Money.roundingHalfUp(cents: nanoTimesBytes, over: Int128(bytesPerGB) * 10_000_000)
    }
}

@testable import EgressCost

/// Prices as in config/pricing.json, built in code so tests do not depend on the file.
enum Fixtures {
    static func rate(_ s: String) -> Rate { Rate(decimal: s)! }

    static let s3 = ProviderPricing(
        id: "aws-s3", name: "Amazon S3", gbBytes: 1 << 30,
        egress: TierSchedule([
            .init(upToGB: 10240, perGB: rate("0.09")), .init(upToGB: 51200, perGB: rate("0.085")),
            .init(upToGB: 153600, perGB: rate("0.07")), .init(upToGB: nil, perGB: rate("0.05")),
        ])!,
        requests: ["read": RequestPrice(perMillion: rate("0.40"), billingUnit: 1000)],
        freeTier: FreeTier(egressGB: 100), asOf: "2026-07-30")

    static let r2 = ProviderPricing(
        id: "cloudflare-r2", name: "Cloudflare R2", gbBytes: 1_000_000_000,
        egress: TierSchedule([.init(upToGB: nil, perGB: rate("0"))])!,
        requests: ["read": RequestPrice(perMillion: rate("0.36"), billingUnit: 1_000_000, roundsUpToBillingUnit: true)],
        freeTier: FreeTier(requestsPerMonth: ["read": 10_000_000]), asOf: "2026-08-03")

    static let b2 = ProviderPricing(
        id: "backblaze-b2", name: "Backblaze B2", gbBytes: 1_000_000_000,
        egress: TierSchedule([.init(upToGB: nil, perGB: rate("0.01"))])!,
        requests: ["read": RequestPrice(perMillion: rate("0.40"), billingUnit: 10_000)],
        freeTier: FreeTier(requestsPerDay: ["read": 2500]), verified: false, asOf: "2026-07-30")

    /// A CloudFront-like CDN: it bills every request it answers.
    static let cdn = ProviderPricing(
        id: "cdn", name: "A CDN", gbBytes: 1_000_000_000,
        egress: TierSchedule([.init(upToGB: nil, perGB: rate("0.085"))])!,
        requests: ["read": RequestPrice(perMillion: rate("1.00"), billingUnit: 10_000)],
        isCDN: true, asOf: "2024-07-01")

    static let all = [s3, r2, b2]

    static let gb: Int64 = 1_000_000_000
    static let gib: Int64 = 1 << 30
}

/// Who answers a device's update check (SPEC §9.1, §9.2 against §4.1).
public enum CheckMode: String, CaseIterable, Sendable {
    /// The bucket answers — `latest_model_details.json` or a §9.2 rules pointer — through a CDN
    /// when one is in front.
    case `static`
    /// modeld answers `/latest` (dynamic mode); downloads still come from the bucket or CDN.
    case server
}

/// The share of update checks a CDN answers from its cache, exact in millionths (0…1).
public struct HitRatio: Equatable, Sendable, CustomStringConvertible {
    static let scale: Int64 = 1_000_000
    public let millionths: Int64

    public static let none = HitRatio(checked: 0)
    public static let all = HitRatio(checked: scale)

    private init(checked millionths: Int64) { self.millionths = millionths }

    /// A plain decimal from 0 to 1 with at most 6 decimals (`0.99`, `1`, `0.999999`).
    public init?(decimal text: String) {
        guard let v = FixedPoint.parse(text, places: 6), v <= Int128(Self.scale) else { return nil }
        millionths = Int64(v)
    }

    /// `part / whole` (0 ≤ part ≤ whole, whole > 0) in millionths, rounded half-up.
    init(fraction part: Int64, of whole: Int64) {
        precondition(whole > 0 && (0...whole).contains(part), "a share of a whole")
        millionths = Int64((2 * Int128(part) * Int128(Self.scale) + Int128(whole)) / (2 * Int128(whole)))
    }

    /// The checks the cache answers, rounded half-up to whole checks.
    public func hits(of checks: Int64) -> Int64 {
        Int64((2 * Int128(checks) * Int128(millionths) + Int128(Self.scale)) / (2 * Int128(Self.scale)))
    }

    public var description: String {
        FixedPoint.trimmed(FixedPoint.format(Int128(millionths), over: Int128(Self.scale), places: 6))
    }
}

/// Where one provider row's update checks land. A CDN (`"cdn": true` in pricing.json) bills every
/// request it answers, hit or miss; a bucket sees only the misses, because the hits are answered
/// by the cache in front of it (Cloudflare's cache on an R2 custom domain bills none; price any
/// other CDN by its own row). In server mode a bucket never sees a check: the misses reach modeld.
public struct CheckRouting: Equatable, Sendable {
    /// Checks billed on the provider as one read request and `pollBytes` of egress each.
    public var atProvider: Int64
    /// Checks modeld answers, each `pollBytes` leaving the server's host.
    public var atServer: Int64

    public static func route(checks: Int64, hitRatio: HitRatio, mode: CheckMode, providerIsCDN: Bool) -> CheckRouting {
        let misses = checks - hitRatio.hits(of: checks)
        switch mode {
        case .static: return CheckRouting(atProvider: providerIsCDN ? checks : misses, atServer: 0)
        case .server: return CheckRouting(atProvider: providerIsCDN ? checks : 0, atServer: misses)
        }
    }
}

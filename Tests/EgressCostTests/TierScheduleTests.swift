import Testing
@testable import EgressCost

struct TierScheduleTests {
    static let s3 = Fixtures.s3.egress

    struct SplitCase: Sendable, CustomTestStringConvertible {
        let gb: Int64
        let bands: [Int64]   // GB per band, graduated
        var testDescription: String { "\(gb) GB" }
    }

    @Test("graduated split: each GB in the band it falls in (SPEC §7.2)", arguments: [
        SplitCase(gb: 0, bands: []),
        SplitCase(gb: 1, bands: [1]),
        SplitCase(gb: 10240, bands: [10240]),
        SplitCase(gb: 10241, bands: [10240, 1]),
        SplitCase(gb: 51200, bands: [10240, 40960]),
        SplitCase(gb: 200000, bands: [10240, 40960, 102400, 46400]),
    ])
    func tiers_splitGraduated_SPEC7_2(_ c: SplitCase) {
        let split = Self.s3.split(bytes: c.gb * Fixtures.gb, bytesPerGB: Fixtures.gb)
        #expect(split.bands.map { $0.bytes / Fixtures.gb } == c.bands)
        #expect(!split.beyondPublished)
    }

    struct CostCase: Sendable, CustomTestStringConvertible {
        let bytes: Int64
        let unit: Int64
        let cents: Int64
        let why: String
        var testDescription: String { why }
    }

    @Test("tier arithmetic to the cent", arguments: [
        CostCase(bytes: 5_000 * Fixtures.gb, unit: Fixtures.gb, cents: 45_000, why: "5,000 GB × $0.09 = $450.00"),
        CostCase(bytes: 5_000 * Fixtures.gb, unit: Fixtures.gib, cents: 41_910,
                 why: "4,656.6128… GiB × $0.09 = $419.095… → $419.10"),
        // 12,000 GB: 10,240 × 0.09 = 921.60; 1,760 × 0.085 = 149.60; total $1,071.20.
        CostCase(bytes: 12_000 * Fixtures.gb, unit: Fixtures.gb, cents: 107_120, why: "crosses 10 TB, SI"),
        // 160,000 GB: 921.60 + 40,960 × 0.085 (3,481.60) + 102,400 × 0.07 (7,168.00) + 6,400 × 0.05 (320.00) = $11,891.20.
        CostCase(bytes: 160_000 * Fixtures.gb, unit: Fixtures.gb, cents: 1_189_120, why: "all four bands"),
        CostCase(bytes: 0, unit: Fixtures.gb, cents: 0, why: "nothing"),
        // 0.05 GB × $0.09 = $0.0045 → $0.00 ; 0.06 GB → $0.0054 → $0.01
        CostCase(bytes: 50_000_000, unit: Fixtures.gb, cents: 0, why: "0.45 cent rounds down"),
        CostCase(bytes: 60_000_000, unit: Fixtures.gb, cents: 1, why: "0.54 cent rounds up"),
    ])
    func tiers_costExact(_ c: CostCase) {
        #expect(Self.s3.cost(bytes: c.bytes, bytesPerGB: c.unit) == Money(cents: c.cents))
    }

    @Test func tiers_halfCentRoundsUp_SPEC7_2() {
        let penny = TierSchedule([.init(upToGB: nil, perGB: Rate(decimal: "0.01")!)])!
        #expect(penny.cost(bytes: Fixtures.gb / 2, bytesPerGB: Fixtures.gb) == Money(cents: 1))     // 0.5 ¢
        #expect(penny.cost(bytes: Fixtures.gb / 2 - 1, bytesPerGB: Fixtures.gb) == Money(cents: 0)) // just under
    }

    @Test func tiers_boundsStayPublished_whenGBUnitChanges_SPEC7_2() {
        // 10,240 GiB is exactly the first S3 band in binary units: no byte at $0.085.
        let atBound = Self.s3.split(bytes: 10240 * Fixtures.gib, bytesPerGB: Fixtures.gib)
        #expect(atBound.bands.count == 1)
        // The same bytes in SI GB are 10,995.1 GB: 755.1 GB spill into band 2.
        let si = Self.s3.split(bytes: 10240 * Fixtures.gib, bytesPerGB: Fixtures.gb)
        #expect(si.bands.map(\.bytes) == [10240 * Fixtures.gb, 10240 * Fixtures.gib - 10240 * Fixtures.gb])
    }

    @Test func tiers_beyondLastPublishedBound_pricedAtLastRateAndFlagged() {
        let cdn = TierSchedule([.init(upToGB: 10, perGB: Rate(decimal: "0.08")!), .init(upToGB: 20, perGB: Rate(decimal: "0.05")!)])!
        let split = cdn.split(bytes: 25 * Fixtures.gb, bytesPerGB: Fixtures.gb)
        #expect(split.beyondPublished)
        #expect(split.bands.map(\.bytes) == [10, 10, 5].map { $0 * Fixtures.gb })
        #expect(cdn.cost(bytes: 25 * Fixtures.gb, bytesPerGB: Fixtures.gb) == Money(cents: 155))
    }

    @Test func tiers_rejectBadLadders() {
        let r = Rate(nanoUSD: 1)
        #expect(TierSchedule([]) == nil)
        #expect(TierSchedule([.init(upToGB: 10, perGB: r), .init(upToGB: 10, perGB: r)]) == nil)
        #expect(TierSchedule([.init(upToGB: nil, perGB: r), .init(upToGB: 10, perGB: r)]) == nil)
    }

    @Test("rates parse exactly", arguments: [("0.0004", 400_000), ("0.085", 85_000_000), ("5", 5_000_000_000), ("0.000000001", 1)])
    func rate_parsesDecimalExactly(_ text: String, _ nano: Int64) {
        #expect(Rate(decimal: text)?.nanoUSD == nano)
    }

    @Test(arguments: ["", "-1", "1e3", "0.0000000001", "1.", ".5", "abc"])
    func rate_rejects(_ text: String) {
        #expect(Rate(decimal: text) == nil)
    }
}

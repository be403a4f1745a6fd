import Testing
@testable import EgressCost

struct EstimateTests {
    static func cost(_ id: String, _ inputs: EstimateInputs) throws -> ProviderCost {
        try #require(try Estimator.estimate(inputs, providers: Fixtures.all).providers.first { $0.id == id })
    }

    static let reference = EstimateInputs(downloads: 5_000_000, sizeBytes: 1_000_000, freeTier: false, gbUnit: .si)

    @Test func estimate_referenceCase_s3Egress450_SPEC7_2() throws {
        let s3 = try Self.cost("aws-s3", Self.reference)
        #expect(s3.egress == Money(cents: 45_000))   // 5,000 GB × $0.09
        #expect(s3.requests == Money(cents: 200))    // 5,000,000 × $0.40/M
        #expect(s3.total == Money(cents: 45_200))
        #expect(s3.egressGB(places: 2) == "5000.00")
    }

    @Test func estimate_referenceCase_r2_1_80_noFreeTier_SPEC7_2() throws {
        let r2 = try Self.cost("cloudflare-r2", Self.reference)
        #expect(r2.egress == .zero)
        #expect(r2.requests == Money(cents: 180))    // 5 M Class B × $0.36/M
        #expect(r2.total == Money(cents: 180))
    }

    @Test func estimate_referenceCase_r2Free_withFreeTier_SPEC7_2() throws {
        var inputs = Self.reference
        inputs.freeTier = true
        #expect(try Self.cost("cloudflare-r2", inputs).total == .zero)  // 10 M free Class B reads
    }

    @Test func estimate_referenceCase_binaryGB_s3Egress419_10_SPEC7_2() throws {
        var inputs = Self.reference
        inputs.gbUnit = .binary
        #expect(try Self.cost("aws-s3", inputs).egress == Money(cents: 41_910))
        // S3's own unit is GiB, so the provider default gives the same bill.
        inputs.gbUnit = .provider
        #expect(try Self.cost("aws-s3", inputs).egress == Money(cents: 41_910))
    }

    @Test func estimate_cheapestFirst_SPEC7_2() throws {
        let ids = try Estimator.estimate(Self.reference, providers: Fixtures.all).providers.map(\.id)
        #expect(ids == ["cloudflare-r2", "backblaze-b2", "aws-s3"])   // 1.80, 52.00, 452.00
    }

    @Test func estimate_crossesS3TenTBTier_toTheCent_SPEC7_2() throws {
        // 12,000 downloads × 1 GB = 12,000 GB (SI), no free tier:
        //   first 10,240 GB × $0.09  =   921.60
        //   next   1,760 GB × $0.085 =   149.60   → egress $1,071.20
        //   12,000 GETs × $0.40/M = $0.0048 → $0.00
        let s3 = try Self.cost("aws-s3", EstimateInputs(downloads: 12_000, sizeBytes: Fixtures.gb, freeTier: false, gbUnit: .si))
        #expect(s3.egress == Money(cents: 107_120))
        #expect(s3.requests == .zero)
        // Same traffic with the 100 GB free tier: 11,900 GB billable → 921.60 + 1,660 × 0.085 (141.10) = $1,062.70.
        let free = try Self.cost("aws-s3", EstimateInputs(downloads: 12_000, sizeBytes: Fixtures.gb, freeTier: true, gbUnit: .si))
        #expect(free.egress == Money(cents: 106_270))
    }

    @Test func estimate_freeTier_s3TakesOff100GBBeforeTiers_SPEC7_2() throws {
        var inputs = Self.reference
        inputs.freeTier = true
        // 4,900 GB × $0.09 = $441.00 (research table §4.1)
        #expect(try Self.cost("aws-s3", inputs).egress == Money(cents: 44_100))
    }

    @Test func estimate_freeTierPerDay_b2Counts30Days() throws {
        var inputs = Self.reference
        inputs.freeTier = true
        // 5,000,000 − 2,500 × 30 = 4,925,000 reads × $0.40/M = $1.97
        let b2 = try Self.cost("backblaze-b2", inputs)
        #expect(b2.requests == Money(cents: 197))
        #expect(!b2.verified)
    }

    @Test func estimate_r2RoundsRequestsUpToMillions() {
        let read = Fixtures.r2.readPrice
        #expect(read.billed(1_000_001) == 2_000_000)
        #expect(read.cost(1_000_001) == Money(cents: 72))
        #expect(read.billed(0) == 0)
        // S3 prorates.
        #expect(Fixtures.s3.readPrice.billed(1_000_001) == 1_000_001)
    }

    @Test func estimate_pollTraffic_installsTimesPollsTimes30_SPEC7_2() throws {
        let inputs = EstimateInputs(downloads: 1_000, sizeBytes: 1_000_000, installs: 100_000, pollsPerDay: 4,
                                    pollBytes: 300, freeTier: false, gbUnit: .si)
        let traffic = try inputs.traffic()
        #expect(inputs.polls == 12_000_000)
        #expect(traffic.bytes == 1_000 * 1_000_000 + 12_000_000 * 300)   // 1 GB + 3.6 GB
        #expect(traffic.requests == 12_001_000)
        // 4.6 GB × $0.09 = $0.414 → $0.41; 12,001,000 × $0.40/M = $4.8004 → $4.80
        let s3 = try Self.cost("aws-s3", inputs)
        #expect(s3.egress == Money(cents: 41))
        #expect(s3.requests == Money(cents: 480))
    }

    @Test func estimate_rejectsOverflowAndNegatives() {
        #expect(throws: EstimateError.self) {
            try EstimateInputs(downloads: Int64.max, sizeBytes: 2).traffic()
        }
        #expect(throws: EstimateError.self) {
            try EstimateInputs(downloads: -1, sizeBytes: 2).traffic()
        }
    }

    @Test func rollout_pricesSizeTimesInstallsTimesPercent_SPEC7_2() throws {
        // 10 % of 2,000,000 installs = 200,000 downloads × 50 MB = 10,000 GB (SI).
        let e = try Estimator.rollout(sizeBytes: 50_000_000, installs: 2_000_000, rolloutPercent: 10,
                                      providers: [Fixtures.s3], freeTier: false, gbUnit: .si)
        #expect(e.inputs.downloads == 200_000)
        #expect(e.providers[0].egress == Money(cents: 90_000))    // 10,000 × $0.09
        #expect(e.providers[0].requests == Money(cents: 8))       // 200,000 × $0.40/M
        // Partial installs round up: 1 % of 150 is 2 downloads.
        #expect(try Estimator.rollout(sizeBytes: 1, installs: 150, rolloutPercent: 1, providers: []).inputs.downloads == 2)
        #expect(throws: EstimateError.self) {
            try Estimator.rollout(sizeBytes: 1, installs: 1, rolloutPercent: 101, providers: [])
        }
    }

    @Test func money_roundsHalfUpAndPrints() {
        #expect(Money.roundingHalfUp(cents: 5, over: 10) == Money(cents: 1))
        #expect(Money.roundingHalfUp(cents: 4, over: 10) == Money(cents: 0))
        #expect(Money(cents: 45_000).description == "450.00")
        #expect(Money(cents: 7).description == "0.07")
    }
}

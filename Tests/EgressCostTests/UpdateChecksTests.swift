import Testing
@testable import EgressCost

/// The request side of update checks (issue 21 item 6): a CDN hit ratio, who answers the
/// checks (bucket or modeld), and a stated server cost, all priced to the cent.
struct UpdateChecksTests {
    @Test(arguments: [
        ("0", Int64?(0)), ("1", 1_000_000), ("0.99", 990_000), ("0.999999", 999_999), ("0.5", 500_000),
        ("1.5", nil), ("1.000001", nil), ("-0.1", nil), ("0.1234567", nil), (".5", nil), ("half", nil), ("", nil),
    ])
    func hitRatio_parsesDecimalsFrom0To1(text: String, millionths: Int64?) {
        #expect(HitRatio(decimal: text)?.millionths == millionths)
    }

    @Test func hitRatio_hitsRoundHalfUp_andPrintsTrimmed() throws {
        let half = try #require(HitRatio(decimal: "0.5"))
        #expect(half.hits(of: 3) == 2)        // 1.5 → 2
        #expect(half.hits(of: 0) == 0)
        #expect(try #require(HitRatio(decimal: "0.99")).hits(of: 4_500_000_000) == 4_455_000_000)
        #expect(HitRatio.none.hits(of: 4_500_000_000) == 0)
        #expect(try #require(HitRatio(decimal: "1")).hits(of: Int64.max / 2) == Int64.max / 2)
        #expect(try #require(HitRatio(decimal: "0.990")).description == "0.99")
        #expect(HitRatio.none.description == "0")
    }

    @Test(arguments: [
        // mode, provider is a CDN → checks billed on the provider, checks answered by modeld
        (CheckMode.static, false, Int64(100), Int64(0)),
        (CheckMode.static, true, 1_000, 0),
        (CheckMode.server, false, 0, 100),
        (CheckMode.server, true, 1_000, 100),
    ])
    func routing_1000checksAt90Percent(mode: CheckMode, cdn: Bool, atProvider: Int64, atServer: Int64) throws {
        let r = CheckRouting.route(checks: 1_000, hitRatio: try #require(HitRatio(decimal: "0.9")), mode: mode, providerIsCDN: cdn)
        #expect(r == CheckRouting(atProvider: atProvider, atServer: atServer))
    }

    /// 25 M devices polling every 4 h: 25,000,000 × 6 × 30 = 4,500,000,000 checks a month.
    static func fleet(_ ratio: String, _ mode: CheckMode = .static, server: Money = .zero,
                      egress: ProviderPricing? = Fixtures.s3) -> EstimateInputs {
        EstimateInputs(downloads: 0, sizeBytes: 1, installs: 25_000_000, pollsPerDay: 6, pollBytes: 300,
                       freeTier: true, cdnHitRatio: HitRatio(decimal: ratio)!, checkMode: mode,
                       serverMonthly: server, serverEgress: egress)
    }

    static func row(_ id: String, _ inputs: EstimateInputs, _ providers: [ProviderPricing] = Fixtures.all + [Fixtures.cdn]) throws -> ProviderCost {
        try #require(try Estimator.estimate(inputs, providers: providers).providers.first { $0.id == id })
    }

    @Test func staticMode_r2BehindCDN_billsOnlyTheMisses() throws {
        // 1 % of 4.5 G = 45 M misses − 10 M free Class B = 35 M × $0.36/M = $12.60.
        let r2 = try Self.row("cloudflare-r2", Self.fleet("0.99"))
        #expect(r2.checksBilled == 45_000_000)
        #expect(r2.requests == Money(cents: 1_260))
        #expect(r2.egressBytes == 45_000_000 * 300)
        #expect(r2.server == .zero && r2.total == Money(cents: 1_260))
        // No CDN: every check is a read. 4,490 M × $0.36/M = $1,616.40.
        #expect(try Self.row("cloudflare-r2", Self.fleet("0")).requests == Money(cents: 161_640))
    }

    @Test func staticMode_aCDNBillsEveryCheck_whateverTheRatio() throws {
        let high = try Self.row("cdn", Self.fleet("0.99"))
        let none = try Self.row("cdn", Self.fleet("0"))
        #expect(high.checksBilled == 4_500_000_000)
        #expect(high == none)
        // 4.5 G × $1.00/M = $4,500; 1.35 TB (10^9) × $0.085 = $114.75.
        #expect(high.requests == Money(cents: 450_000))
        #expect(high.egress == Money(cents: 11_475))
    }

    @Test func serverMode_bucketBillsNoChecks_modeldPaysEgressOfTheMissesPlusStatedCost() throws {
        // No CDN: 4.5 G answers × 300 B = 1.35 × 10^12 B = 1,257.29 GiB × $0.09 = $113.16, no free
        // tier, plus $60 stated.
        let r2 = try Self.row("cloudflare-r2", Self.fleet("0", .server, server: Money(cents: 6_000)))
        #expect(r2.checksBilled == 0 && r2.requests == .zero)
        #expect(r2.serverEgressBytes == 1_350_000_000_000)
        #expect(r2.server == Money(cents: 6_000 + 11_316))
        #expect(r2.total == Money(cents: 17_316))
        // Behind a CDN that answers 90 %: a tenth of that egress.
        let cached = try Self.row("cloudflare-r2", Self.fleet("0.9", .server, server: Money(cents: 6_000)))
        #expect(cached.server == Money(cents: 6_000 + 1_132))   // 125.73 GiB × $0.09 = $11.3156
    }

    @Test func serverMode_downloadsStillComeFromTheProvider() throws {
        var inputs = Self.fleet("0", .server)
        inputs.downloads = 5_000_000
        inputs.sizeBytes = 1_000_000
        inputs.freeTier = false
        let r2 = try Self.row("cloudflare-r2", inputs)
        #expect(r2.requests == Money(cents: 180))    // the SPEC's 5 M reads, and no check among them
        #expect(r2.checksBilled == 0)
    }

    @Test func statedServerCost_isOnEveryRow_inEitherMode() throws {
        let e = try Estimator.estimate(Self.fleet("0.99", .static, server: Money(cents: 4_000)), providers: Fixtures.all)
        #expect(e.providers.allSatisfy { $0.server == Money(cents: 4_000) && $0.total == $0.egress + $0.requests + $0.fixed + $0.server })
    }

    @Test func serverMode_withoutAnEgressPrice_isAnError() {
        #expect(throws: EstimateError.self) {
            try Estimator.estimate(Self.fleet("0.5", .server, egress: nil), providers: [Fixtures.r2])
        }
        // Every check a cache hit: nothing leaves modeld, nothing to price.
        #expect(throws: Never.self) {
            try Estimator.estimate(Self.fleet("1", .server, egress: nil), providers: [Fixtures.r2])
        }
    }

    /// SPEC §17.2: N models per install are N requests per poll, or one with `batched`; the
    /// bytes are N answers either way (a batched answer carries one per model).
    @Test func modelsPerInstall_multiplyRequests_batchingMakesThemOne_bytesStayNAnswers() throws {
        var fifty = Self.fleet("0")
        fifty.modelsPerInstall = 50
        #expect(fifty.checks == 225_000_000_000 && fifty.checkBytes == 300)
        var batched = fifty
        batched.batched = true
        #expect(batched.checks == 4_500_000_000 && batched.checkBytes == 15_000)
        #expect(try fifty.traffic().bytes == (try batched.traffic().bytes))
        #expect(try fifty.traffic().requests == 225_000_000_000 && (try batched.traffic().requests) == 4_500_000_000)

        // R2, no CDN: 225 G reads − 10 M free × $0.36/M = $80,996.40; batched, as one model's checks: $1,616.40.
        #expect(try Self.row("cloudflare-r2", fifty).requests == Money(cents: 8_099_640))
        #expect(try Self.row("cloudflare-r2", batched).requests == Money(cents: 161_640))
        // A CDN at $1.00/M bills 50× the requests unbatched; egress the same: 67.5 TB × $0.085 = $5,737.50.
        let cdn = try Self.row("cdn", fifty), cdnBatched = try Self.row("cdn", batched)
        #expect(cdn.requests == Money(cents: 22_500_000) && cdnBatched.requests == Money(cents: 450_000))
        #expect(cdn.egress == cdnBatched.egress && cdn.egress == Money(cents: 573_750))
        // Server mode: the answers leave modeld either way, so its egress does not change.
        var server = fifty, serverBatched = batched
        (server.checkMode, serverBatched.checkMode) = (.server, .server)
        #expect(try Self.row("cloudflare-r2", server).serverEgressBytes == 67_500_000_000_000)
        #expect(try Self.row("cloudflare-r2", server).server == (try Self.row("cloudflare-r2", serverBatched).server))

        var none = fifty
        none.modelsPerInstall = 0
        #expect(throws: EstimateError.self) { try none.traffic() }
        // One model: batched or not is the same bill.
        var oneBatched = Self.fleet("0.9")
        oneBatched.batched = true
        #expect(try Self.row("cloudflare-r2", Self.fleet("0.9")) == (try Self.row("cloudflare-r2", oneBatched)))
    }

    @Test func pricingFile_readsTheCDNMark() throws {
        let entry = """
        {"providers":[{"id":"x","name":"X","gb_bytes":1000000000,"egress_tiers":[{"up_to_gb":null,"usd_per_gb":0.01}],
        "request_prices":{"read":{"usd_per_million":1}},"verified":true,"source":"s","as_of":"2026-01-01"MARK}]}
        """
        #expect(try PriceTable.parse(json: entry.replacingOccurrences(of: "MARK", with: ",\"cdn\":true")).providers[0].isCDN)
        #expect(try !PriceTable.parse(json: entry.replacingOccurrences(of: "MARK", with: "")).providers[0].isCDN)
        #expect(throws: PricingError.self) {
            try PriceTable.parse(json: entry.replacingOccurrences(of: "MARK", with: ",\"cdn\":\"yes\""))
        }
    }

    @Test func json_addsTheCheckFields_andKeepsTheOldOnes() throws {
        let e = try Estimator.estimate(Self.fleet("0.99"), providers: [Fixtures.r2])
        let json = EstimateRenderer.json(e)
        for field in ["\"polls\":4500000000", "\"requests\":4500000000", "\"mode\":\"static\"", "\"cdn_hit_ratio\":0.99",
                      "\"cache_misses\":45000000", "\"server_monthly_usd\":0.00", "\"server_egress\":\"aws-s3\"",
                      "\"requests_usd\":12.60", "\"total_usd\":12.60", "\"server_usd\":0.00", "\"checks_billed\":45000000",
                      "\"server_egress_bytes\":0", "\"egress_usd\":0.00", "\"as_of\":\"2026-08-03\""] {
            #expect(json.contains(field), "\(field) in \(json)")
        }
    }

    @Test func table_showsTheServerColumnOnlyWhenAServerIsPriced() throws {
        let plain = EstimateRenderer.table(try Estimator.estimate(Self.fleet("0.99"), providers: [Fixtures.r2]))
        #expect(!plain.contains("server $"))
        #expect(plain.contains("CDN hit ratio 0.99"))
        let server = EstimateRenderer.table(try Estimator.estimate(Self.fleet("0", .server, server: Money(cents: 6_000)), providers: [Fixtures.r2]))
        #expect(server.contains("server $"))
        #expect(server.split(separator: "\n").contains { $0.hasPrefix("cloudflare-r2") && $0.contains("173.16") }, "\(server)")
    }
}

import ChildProcesses
import Foundation
import Testing

/// `modelctl cost estimate` as the real binary (SPEC §7.2): every format, the SPEC's reference
/// case, and the errors an operator sees.
@Suite(.serialized) final class CostCLITests {
    static let pricing = ModeldServer.repositoryRoot.appendingPathComponent("config/pricing.json").path
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("cost-cli-\(UUID().uuidString)")

    init() throws { try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true) }
    deinit { try? FileManager.default.removeItem(at: scratch) }

    static func modelctl(_ arguments: [String]) throws -> ProcessResult {
        try ChildProcess.run(TestBinaries.modelctl, arguments, timeout: .seconds(30))
    }

    static let reference = ["cost", "estimate", "--downloads", "5000000", "--size", "1MB", "--pricing", pricing]

    /// Providers of a `--format json` answer keyed by id.
    static func providers(_ stdout: String) throws -> [String: [String: Any]] {
        let object = try #require(JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [String: Any])
        let list = try #require(object["providers"] as? [[String: Any]])
        return Dictionary(uniqueKeysWithValues: list.map { ($0["id"] as? String ?? "", $0) })
    }

    static func usd(_ value: Any?) -> String {
        guard let n = value as? NSNumber else { return "missing" }
        return String(format: "%.2f", n.doubleValue)
    }

    @Test func estimateJSON_referenceCase_SIGigabytesNoFreeTier_SPEC7_2() throws {
        let r = try Self.modelctl(Self.reference + ["--gb-unit", "si", "--no-free-tier", "--format", "json"])
        #expect(r.status == 0, "\(r.stderr)")
        let object = try #require(JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let inputs = try #require(object["inputs"] as? [String: Any])
        #expect(inputs["downloads"] as? Int == 5_000_000)
        #expect(inputs["size_bytes"] as? Int == 1_000_000)
        let p = try Self.providers(r.stdout)
        #expect(Self.usd(p["aws-s3"]?["egress_usd"]) == "450.00")
        #expect(Self.usd(p["aws-s3"]?["requests_usd"]) == "2.00")
        #expect(Self.usd(p["aws-s3"]?["total_usd"]) == "452.00")
        #expect(Self.usd(p["cloudflare-r2"]?["egress_usd"]) == "0.00")
        #expect(Self.usd(p["cloudflare-r2"]?["total_usd"]) == "1.80")
        // Every provider of the pricing file, cheapest first.
        let list = try #require((try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])?["providers"] as? [[String: Any]])
        #expect(list.count >= 10)
        let totals = list.compactMap { ($0["total_usd"] as? NSNumber)?.doubleValue }
        #expect(totals == totals.sorted())
    }

    @Test func estimateJSON_R2FreeTierAndBinaryS3_SPEC7_2() throws {
        let free = try Self.modelctl(Self.reference + ["--gb-unit", "si", "--free-tier", "--provider", "cloudflare-r2", "--format", "json"])
        #expect(free.status == 0, "\(free.stderr)")
        let r2 = try Self.providers(free.stdout)
        #expect(r2.keys.sorted() == ["cloudflare-r2"])
        #expect(Self.usd(r2["cloudflare-r2"]?["total_usd"]) == "0.00")

        let binary = try Self.modelctl(Self.reference + ["--gb-unit", "binary", "--no-free-tier", "--provider", "aws-s3", "--format", "json"])
        #expect(binary.status == 0, "\(binary.stderr)")
        #expect(Self.usd(try Self.providers(binary.stdout)["aws-s3"]?["egress_usd"]) == "419.10")
    }

    @Test func estimateTable_referenceCase() throws {
        let r = try Self.modelctl(Self.reference + ["--gb-unit", "si", "--no-free-tier"])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.contains("5,000,000 downloads") == true, "\(r.stdout)")
        let s3 = try #require(lines.first { $0.hasPrefix("aws-s3 ") }, "\(r.stdout)")
        let s3Cells = s3.split(separator: " ").map(String.init)
        #expect(s3Cells.contains("450.00") && s3Cells.contains("2.00") && s3Cells.contains("452.00"), "\(s3)")
        let r2 = try #require(lines.first { $0.hasPrefix("cloudflare-r2") }, "\(r.stdout)")
        #expect(r2.split(separator: " ").contains("1.80"), "\(r2)")
        // Cheapest first: R2 above S3.
        #expect(lines.firstIndex(of: r2)! < lines.firstIndex(of: s3)!)
    }

    @Test func estimateCSV_referenceCase() throws {
        let r = try Self.modelctl(Self.reference + ["--gb-unit", "si", "--no-free-tier", "--format", "csv"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.hasSuffix("\r\n"), "RFC 4180 line ends")
        let lines = r.stdout.split(whereSeparator: \.isNewline).map(String.init)
        let header = lines.first?.split(separator: ",").map(String.init) ?? []
        #expect(header == ["id", "name", "egress_gb", "gb_bytes", "egress_usd", "requests_usd", "fixed_usd", "total_usd", "verified", "as_of", "server_usd"])
        let s3 = try #require(lines.first { $0.hasPrefix("aws-s3,") })
        // The name may be quoted and hold commas: read the numeric columns from the end.
        let tail = s3.split(separator: ",").suffix(9).map(String.init)
        #expect(tail[0] == "5000", "egress GB: \(s3)")
        #expect(tail[1] == "1000000000", "SI GB: \(s3)")
        #expect(Array(tail[2...5]) == ["450.00", "2.00", "0.00", "452.00"], "\(s3)")
        let r2 = try #require(lines.first { $0.hasPrefix("cloudflare-r2,") })
        #expect(r2.split(separator: ",").suffix(9).map(String.init)[5] == "1.80", "\(r2)")
        #expect(tail[8] == "0.00", "server_usd: \(s3)")
        #expect(lines.count >= 11)
    }

    /// 25 M devices polling every 4 h (issue 21 item 6), the worked example of docs/cost.md.
    static let fleet = ["cost", "estimate", "--downloads", "0", "--size", "1MB", "--installs", "25000000",
                        "--polls-per-day", "6", "--pricing", pricing]

    @Test func estimateJSON_cdnHitRatio_bucketBillsTheMisses_CDNEveryCheck() throws {
        let r = try Self.modelctl(Self.fleet + ["--cdn-hit-ratio", "0.99", "--format", "json"])
        #expect(r.status == 0, "\(r.stderr)")
        let object = try #require(JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let inputs = try #require(object["inputs"] as? [String: Any])
        #expect(inputs["polls"] as? Int == 4_500_000_000)
        #expect(inputs["requests"] as? Int == 4_500_000_000)
        #expect(inputs["mode"] as? String == "static")
        #expect((inputs["cdn_hit_ratio"] as? NSNumber)?.doubleValue == 0.99)
        #expect(inputs["cache_misses"] as? Int == 45_000_000)
        let p = try Self.providers(r.stdout)
        // 45 M misses − 10 M free Class B reads = 35 M × $0.36/M.
        #expect(Self.usd(p["cloudflare-r2"]?["requests_usd"]) == "12.60")
        #expect(Self.usd(p["cloudflare-r2"]?["total_usd"]) == "12.60")
        #expect(p["cloudflare-r2"]?["checks_billed"] as? Int == 45_000_000)
        // CloudFront bills all 4.5 G checks: (4,500 M − 10 M free) × $1.00/M.
        #expect(Self.usd(p["aws-cloudfront"]?["requests_usd"]) == "4490.00")
        #expect(p["aws-cloudfront"]?["checks_billed"] as? Int == 4_500_000_000)
        for (_, row) in p {
            for field in ["egress_gb", "egress_usd", "requests_usd", "fixed_usd", "total_usd", "verified", "as_of", "server_usd"] {
                #expect(row[field] != nil, "\(field)")
            }
        }
    }

    @Test func estimateTable_serverMode_pricesModeldsEgressAndStatedMachines() throws {
        let r = try Self.modelctl(Self.fleet + ["--mode", "server", "--server-monthly", "60", "--provider", "cloudflare-r2"])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.contains("server $") }, "\(r.stdout)")
        #expect(lines.contains { $0.contains("4,500,000,000 misses reach modeld") }, "\(r.stdout)")
        // 1.35 × 10^12 B = 1,257.29 GiB × $0.09 (aws-s3, no free tier) = $113.16, + $60 stated.
        let r2 = try #require(lines.first { $0.hasPrefix("cloudflare-r2") }, "\(r.stdout)")
        let cells = r2.split(separator: " ").map(String.init)
        #expect(cells.contains("173.16") && cells.contains("0.00"), "\(r2)")

        let json = try Self.modelctl(Self.fleet + ["--mode", "server", "--server-monthly", "60", "--provider", "cloudflare-r2", "--format", "json"])
        let row = try #require(try Self.providers(json.stdout)["cloudflare-r2"])
        #expect(Self.usd(row["server_usd"]) == "173.16")
        #expect(Self.usd(row["requests_usd"]) == "0.00")
        #expect(row["server_egress_bytes"] as? Int == 1_350_000_000_000)
    }

    @Test(arguments: [
        (["--cdn-hit-ratio", "1.5"], "--cdn-hit-ratio"),
        (["--cdn-hit-ratio", "most"], "most"),
        (["--mode", "edge"], "--mode"),
        (["--mode", "server", "--server-egress", "nowhere"], "nowhere"),
        (["--server-monthly", "12.345"], "--server-monthly"),
        (["--models-per-install", "0"], "--models-per-install must be at least 1"),
        (["--models-per-install", "many"], "--models-per-install"),
        (["--batched", "--mode", "server", "--cdn-hit-ratio", "0.5"], "POST /check"),
    ])
    func estimate_badCheckOptions_exit2NamingThem(extra: [String], named: String) throws {
        let r = try Self.modelctl(Self.fleet + extra)
        #expect(r.status == 2, "\(r.stdout)\(r.stderr)")
        #expect(r.stderr.contains(named), "\(r.stderr)")
        #expect(r.stdout.isEmpty)
    }

    /// SPEC §17.2: 50 models per install are 50 requests per poll, one with --batched; the same bytes.
    @Test func estimateJSON_modelsPerInstall_batchedIsOneRequestPerPoll_SPEC17_2() throws {
        let apart = try Self.modelctl(Self.fleet + ["--models-per-install", "50", "--format", "json"])
        let batched = try Self.modelctl(Self.fleet + ["--models-per-install", "50", "--batched", "--format", "json"])
        #expect(apart.status == 0 && batched.status == 0, "\(apart.stderr)\(batched.stderr)")
        let a = try #require((try JSONSerialization.jsonObject(with: Data(apart.stdout.utf8)) as? [String: Any])?["inputs"] as? [String: Any])
        let b = try #require((try JSONSerialization.jsonObject(with: Data(batched.stdout.utf8)) as? [String: Any])?["inputs"] as? [String: Any])
        #expect(a["models_per_install"] as? Int == 50 && a["batched"] as? Bool == false && b["batched"] as? Bool == true)
        #expect(a["checks"] as? Int == 225_000_000_000 && b["checks"] as? Int == 4_500_000_000)
        #expect(a["check_bytes"] as? Int == 300 && b["check_bytes"] as? Int == 15_000)
        #expect(a["requests"] as? Int == 225_000_000_000 && b["requests"] as? Int == 4_500_000_000)
        #expect(a["egress_bytes"] as? Int == b["egress_bytes"] as? Int)
        // R2 without a CDN: (225 G − 10 M free) × $0.36/M against (4.5 G − 10 M) × $0.36/M.
        #expect(Self.usd(try Self.providers(apart.stdout)["cloudflare-r2"]?["requests_usd"]) == "80996.40")
        #expect(Self.usd(try Self.providers(batched.stdout)["cloudflare-r2"]?["requests_usd"]) == "1616.40")
        let table = try Self.modelctl(Self.fleet + ["--models-per-install", "50", "--batched", "--provider", "cloudflare-r2"])
        #expect(table.stdout.contains("4,500,000,000 update checks × 15,000 B (50 models per install, one batched check per poll)"), "\(table.stdout)")
        let alone = try Self.modelctl(Self.reference + ["--batched"])
        #expect(alone.status == 2 && alone.stderr.contains("--batched needs --installs"), "\(alone.stderr)")
    }

    @Test func estimate_hitRatioWithoutPolls_exit2() throws {
        let r = try Self.modelctl(Self.reference + ["--cdn-hit-ratio", "0.9"])
        #expect(r.status == 2 && r.stderr.contains("--installs"), "\(r.stderr)")
    }

    @Test(arguments: ["1XB", "-5MB", "lots"])
    func estimate_badSize_exit2NamingIt(size: String) throws {
        let r = try Self.modelctl(["cost", "estimate", "--downloads", "10", "--size=\(size)", "--pricing", Self.pricing])
        #expect(r.status == 2, "\(r.stdout)\(r.stderr)")
        #expect(r.stderr.contains(size), "\(r.stderr)")
        #expect(r.stdout.isEmpty)
    }

    @Test func estimate_pricingWithNullPrice_exit1NamingProviderAndField() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: Self.pricing))
        var object = try #require(JSONSerialization.jsonObject(with: data) as? [String: Any])
        var providers = try #require(object["providers"] as? [[String: Any]])
        let index = try #require(providers.firstIndex { $0["id"] as? String == "aws-s3" })
        var tiers = try #require(providers[index]["egress_tiers"] as? [[String: Any]])
        tiers[1]["usd_per_gb"] = NSNull()
        providers[index]["egress_tiers"] = tiers
        object["providers"] = providers
        let bad = scratch.appendingPathComponent("pricing.json")
        try JSONSerialization.data(withJSONObject: object).write(to: bad)

        let r = try Self.modelctl(["cost", "estimate", "--downloads", "10", "--size", "1MB", "--pricing", bad.path])
        #expect(r.status == 1, "\(r.stdout)\(r.stderr)")
        #expect(r.stderr.contains("aws-s3"), "\(r.stderr)")
        #expect(r.stderr.contains("egress_tiers[1].usd_per_gb"), "\(r.stderr)")
        #expect(r.stderr.split(separator: "\n").count == 1, "one line: \(r.stderr)")
    }

    @Test func estimate_missingPricingFile_exit1() throws {
        let r = try Self.modelctl(["cost", "estimate", "--downloads", "10", "--size", "1MB", "--pricing", scratch.appendingPathComponent("nope.json").path])
        #expect(r.status == 1, "\(r.stderr)")
        #expect(r.stderr.contains("nope.json"), "\(r.stderr)")
    }
}

/// `--transfer-ratio R` (SPEC §16): downloads that fetch packs or patches transfer R of the file.
@Suite struct CostTransferRatioCLITests {
    @Test func estimate_transferRatioScalesDownloadEgress_andBadRatiosExit2_SPEC16() throws {
        let r = try CostCLITests.modelctl(CostCLITests.reference + ["--gb-unit", "si", "--no-free-tier", "--format", "json",
                                                                    "--transfer-ratio", "0.6"])
        #expect(r.status == 0, "\(r.stderr)")
        let object = try #require(JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let inputs = try #require(object["inputs"] as? [String: Any])
        #expect((inputs["transfer_ratio"] as? NSNumber)?.doubleValue == 0.6)
        #expect(inputs["egress_bytes"] as? Int == 3_000_000_000_000)
        #expect(CostCLITests.usd(try CostCLITests.providers(r.stdout)["aws-s3"]?["egress_usd"]) == "270.00")   // 0.6 × $450.00
        let table = try CostCLITests.modelctl(CostCLITests.reference + ["--transfer-ratio", "0.6"])
        #expect(table.status == 0 && table.stdout.contains("× transfer ratio 0.6"), "\(table.stdout)")
        for bad in ["0", "1.5", "x"] {
            let refused = try CostCLITests.modelctl(CostCLITests.reference + ["--transfer-ratio", bad])
            #expect(refused.status == 2 && refused.stderr.contains("--transfer-ratio"), "\(bad): \(refused.stderr)")
        }
    }
}

import Foundation
import JSONSupport
import Testing
@testable import EgressCost

struct PriceTableTests {
    /// One provider; an override replaces the base member of the same name (duplicate keys are an error).
    static func provider(_ overrides: String = "", tiers: String = #"[{"up_to_gb": 10240, "usd_per_gb": 0.09}, {"up_to_gb": null, "usd_per_gb": 0.085}]"#) -> String {
        let base = [("id", #""aws-s3""#), ("name", #""S3""#), ("gb_bytes", "1073741824"), ("egress_tiers", tiers),
                    ("request_prices", #"{"read": {"usd_per_million": 0.40, "billing_unit": 1000}}"#),
                    ("free_tier", #"{"egress_gb_per_month": 100, "requests_per_day": {"read": 2500}}"#),
                    ("verified", "true"), ("source", #""s""#), ("as_of", #""2026-07-30""#)]
        let replaced = overrides.split(separator: "\"").dropFirst().first.map(String.init)
        let members = base.filter { $0.0 != replaced }.map { "\"\($0.0)\": \($0.1)" }.joined(separator: ", ")
        return #"{"providers": [{"# + members + overrides + "}]}"
    }

    static func message(_ json: String) -> String? {
        do { _ = try PriceTable.parse(json: json); return nil } catch { return error.message }
    }

    @Test func pricing_parsesProvider_SPEC7_2() throws {
        let table = try PriceTable.parse(json: Self.provider())
        let s3 = try #require(table.provider(id: "aws-s3"))
        #expect(s3.gbBytes == 1 << 30)
        #expect(s3.egress.tiers.map(\.upToGB) == [10240, nil])
        #expect(s3.egress.tiers[1].perGB.nanoUSD == 85_000_000)
        #expect(s3.readPrice.perMillion.nanoUSD == 400_000_000)
        #expect(s3.freeTier.egressGB == 100)
        #expect(s3.freeTier.requests("read") == 75_000)
        #expect(s3.asOf == "2026-07-30")
    }

    @Test("a missing or null price names the provider and the field (SPEC §7.2)", arguments: [
        (provider(tiers: #"[{"up_to_gb": null, "usd_per_gb": null}]"#), "egress_tiers[0].usd_per_gb' is missing or null"),
        (provider(tiers: #"[{"up_to_gb": 10}, {"up_to_gb": null, "usd_per_gb": 1}]"#), "egress_tiers[0].usd_per_gb' is missing or null"),
        (provider(#", "gb_bytes": null"#), "'gb_bytes' is missing or null"),
        (provider(#", "request_prices": {"read": {"usd_per_million": null}}"#), "request_prices.read.usd_per_million' is missing or null"),
        (provider(#", "request_prices": {}"#), "request_prices.read.usd_per_million' is missing or null"),
        (provider(#", "storage_usd_per_gb_month": null"#), "'storage_usd_per_gb_month' is missing or null"),
        (provider(#", "as_of": null"#), "'as_of' is missing or null"),
        (provider(#", "verified": "yes""#), "'verified' must be true or false"),
        (provider(#", "gb_bytes": 1024"#), "'gb_bytes' must be 1000000000 or 1073741824"),
        (provider(tiers: #"[{"up_to_gb": 10, "usd_per_gb": -1}]"#), "egress_tiers[0].usd_per_gb' must be a non-negative decimal"),
        (provider(tiers: #"[{"up_to_gb": null, "usd_per_gb": 1}, {"up_to_gb": 5, "usd_per_gb": 1}]"#), "'egress_tiers' must be non-empty"),
    ])
    func pricing_errorNamesProviderAndField_SPEC7_2(_ json: String, _ expected: String) throws {
        let message = try #require(Self.message(json))
        #expect(message.contains("provider 'aws-s3'"))
        #expect(message.contains(expected))
    }

    @Test func pricing_malformedJSON_isClearError() throws {
        let message = try #require(Self.message(#"{"providers": [}"#))
        #expect(message.hasPrefix("pricing file: invalid JSON at byte"))
        #expect(Self.message(#"{"providers": []}"#) == "pricing file: no providers")
        #expect(Self.message(#"{"providers": [{"name": "x"}]}"#)?.contains("providers[0]: field 'id'") == true)
    }

    /// The shipped file parses, covers the providers SPEC §7.2 names and keeps its sources.
    @Test func pricing_shippedConfig_hasEverySpecProvider_SPEC7_2() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../config/pricing.json")
        let table = try PriceTable.parse(json: String(contentsOf: url, encoding: .utf8))
        let required = ["aws-s3", "aws-cloudfront", "cloudflare-r2", "gcp-cloud-storage", "gcp-cloud-cdn", "azure-blob",
                        "backblaze-b2", "bunny-cdn-standard", "fastly-cdn", "digitalocean-spaces"]
        for id in required {
            let p = try #require(table.provider(id: id), "\(id) missing")
            #expect(!p.source.isEmpty && !p.asOf.isEmpty)
        }
        #expect(table.provider(id: "fastly-cdn")?.verified == false)
        // The reference case holds on the shipped prices too.
        let e = try Estimator.estimate(EstimateInputs(downloads: 5_000_000, sizeBytes: 1_000_000, freeTier: false, gbUnit: .si),
                                       providers: table.providers)
        #expect(e.providers.first { $0.id == "aws-s3" }?.egress == Money(cents: 45_000))
        #expect(e.providers.first { $0.id == "cloudflare-r2" }?.total == Money(cents: 180))
    }

    @Test("JSON reader", arguments: [
        (#"{"a":[1,-2.5e3,true,false,null,"x\u00e9\n"]}"#, true),
        (#"{"a":01}"#, false), (#"[1,]"#, false), (#"{"a":1} x"#, false), (#""\ud83d\ude00""#, true), ("\"a\tb\"", false),
    ])
    func json_reader(_ text: String, _ valid: Bool) {
        #expect(((try? JSONReader.parse(Array(text.utf8))) != nil) == valid)
    }

    @Test func json_readerKeepsNumberText() throws {
        let source = Array(#"{"p":0.0004}"#.utf8)
        #expect(try JSONReader.parse(source)["p"]?.literal(in: source) == "0.0004")
        #expect(try JSONReader.parse(Array(#""\ud83d\ude00""#.utf8)).value.stringValue == "😀")
    }

    @Test func pricing_duplicateKeyIsAnError() {
        let text = #"{"providers":[],"providers":[]}"#
        #expect(throws: PricingError(message: #"pricing file: invalid JSON at byte 16: duplicate key "providers""#)) {
            try PriceTable.parse(json: text)
        }
    }
}

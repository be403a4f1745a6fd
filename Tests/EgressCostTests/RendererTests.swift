import JSONSupport
import Testing
@testable import EgressCost

struct RendererTests {
    static let estimate = try! Estimator.estimate(
        EstimateInputs(downloads: 5_000_000, sizeBytes: 1_000_000, freeTier: false, gbUnit: .si), providers: Fixtures.all)

    @Test func estimateJSON_hasSpecShapeWithNumbers_SPEC7_2() throws {
        let json = try Parsed(EstimateRenderer.json(Self.estimate))
        #expect(json.text(json.root["inputs"]?["downloads"]) == "5000000")
        #expect(json.text(json.root["inputs"]?["size_bytes"]) == "1000000")
        guard case .array(let providers)? = json.root["providers"]?.value else { Issue.record("providers"); return }
        #expect(providers.count == 3)
        let s3 = try #require(providers.first { $0["id"]?.value.stringValue == "aws-s3" })
        #expect(s3["name"]?.value.stringValue == "Amazon S3")
        #expect(json.text(s3["egress_gb"]) == "5000")
        #expect(json.text(s3["egress_usd"]) == "450.00")
        #expect(json.text(s3["requests_usd"]) == "2.00")
        #expect(json.text(s3["total_usd"]) == "452.00")
        #expect(s3["as_of"]?.value.stringValue == "2026-07-30")
        #expect(s3["verified"]?.value.boolValue == true)
        #expect(providers[0]["id"]?.value.stringValue == "cloudflare-r2")   // cheapest first
    }

    @Test func estimateCSV_headerAndRows_SPEC7_2() {
        let lines = EstimateRenderer.csv(Self.estimate).split(separator: "\r\n")
        #expect(lines[0] == "id,name,egress_gb,gb_bytes,egress_usd,requests_usd,fixed_usd,total_usd,verified,as_of,server_usd")
        #expect(lines[1] == "cloudflare-r2,Cloudflare R2,5000,1000000000,0.00,1.80,0.00,1.80,true,2026-08-03,0.00")
        #expect(lines.count == 4)
        #expect(CSV.field("a,\"b\"") == "\"a,\"\"b\"\"\"")
    }

    @Test func estimateTable_alignsAndStarsUnverified_SPEC7_2() {
        let text = EstimateRenderer.table(Self.estimate)
        #expect(text.contains("backblaze-b2 *"))
        #expect(text.contains("* unverified"))
        let rows = text.split(separator: "\n").filter { $0.hasPrefix("aws-s3") || $0.hasPrefix("cloudflare-r2") }
        #expect(rows.count == 2)
        #expect(rows[0].count == rows[1].count)   // right-aligned numbers, same as-of width
        #expect(rows.contains { $0.contains("450.00") && $0.contains("452.00") })
    }

    static let summary = try! TrafficReportTests.report().summary(providers: Fixtures.all)

    @Test func reportHTML_selfContainedWithSVG_SPEC7_2() {
        let html = ReportRenderer.html(Self.summary)
        #expect(html.hasPrefix("<!DOCTYPE html>"))
        #expect(html.contains("<svg"))
        #expect(html.contains("<style>"))
        #expect(!html.lowercased().contains("<script"))
        #expect(!html.contains("http"))          // no external assets or links of any kind
        #expect(!html.contains("src="))
        #expect(html.contains("2026-11-01") && html.contains("cloudflare-r2"))
    }

    @Test func reportHTML_withoutPrices_isTheTrafficAlone_SPEC15_1() throws {
        let html = ReportRenderer.htmlBody(try TrafficReportTests.report().summary(providers: []))
        #expect(html.contains("Bytes served per day") && html.contains("2026-11-01"))
        #expect(!html.contains("Projected monthly cost") && !html.contains("Cheapest per month"))
    }

    @Test func requestCounts_singularForOne() {
        #expect(ByteFormat.requests(1) == "1 request" && ByteFormat.requests(0) == "0 requests")
        #expect(ByteFormat.requests(5_000_000) == "5,000,000 requests")
    }

    @Test func reportHTML_escapesText() {
        var s = Self.summary
        s.byModel = [ReportSummary.Row(key: "<img onerror=x>", traffic: TrafficCounter(bytes: 1, requests: 1))]
        let html = ReportRenderer.html(s)
        #expect(!html.contains("<img"))
        #expect(html.contains("&lt;img onerror=x&gt;"))
    }

    @Test func reportJSON_parsesWithTotalsAndProjection_SPEC7_2() throws {
        let json = try Parsed(ReportRenderer.json(Self.summary))
        #expect(json.text(json.root["totals"]?["bytes"]) == "7315")
        #expect(json.text(json.root["not_modified"]?["bytes_saved"]) == "6300")
        #expect(json.text(json.root["range_resumes"]?["count"]) == "1")
        #expect(json.text(json.root["projection"]?["monthly_bytes"]) == "109725")
        #expect(json.text(json.root["period"]?["covered_days"]) == "2")
        guard case .array(let days)? = json.root["by_day"]?.value else { Issue.record("by_day"); return }
        #expect(days.first?["day"]?.value.stringValue == "2026-11-01")
    }

    @Test func reportCSV_sectionsShareOneHeader() {
        let lines = ReportRenderer.csv(Self.summary).split(separator: "\r\n")
        let width = lines[0].split(separator: ",", omittingEmptySubsequences: false).count
        #expect(lines[0].hasPrefix("section,key,bytes,requests,name,egress_gb"))
        #expect(lines.contains("day,2026-11-01,1700,5" + String(repeating: ",", count: width - 4)))
        #expect(lines.contains { $0.hasPrefix("not_modified,304,6300,4") })
        #expect(lines.contains { $0.hasPrefix("projected_cost,aws-s3,,,Amazon S3,") })
    }

    @Test func reportTable_mentionsEverySection() {
        let text = ReportRenderer.table(Self.summary)
        for part in ["By day", "By model", "By route", "304 Not Modified: 4", "Range resumes (206): 1", "Monthly projection"] {
            #expect(text.contains(part), "\(part)")
        }
    }
}

struct ChartScaleTests {
    @Test(arguments: [(0, 4), (654_000_000_000, 800_000_000_000), (7, 8), (20, 20), (21, 40), (Int64.max, Int64.max)] as [(Int64, Int64)])
    func chart_axisMaxIsRound(_ value: Int64, _ axis: Int64) {
        #expect(ReportRenderer.niceCeiling(value) == axis)
    }
}

/// A rendered JSON document with its bytes, so numbers are checked as the exact text written.
private struct Parsed {
    let bytes: [UInt8]
    let root: JSONNode
    init(_ text: String) throws {
        bytes = Array(text.utf8)
        root = try JSONReader.parse(bytes)
    }
    func text(_ node: JSONNode?) -> String? { node?.literal(in: bytes) }
}

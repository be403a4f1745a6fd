import Testing
@testable import EgressCost

struct TrafficReportTests {
    static func line(_ ts: String, _ path: String, _ route: String, _ status: Int, _ bytes: Int64,
                     range: Bool = false, model: String? = nil) -> String {
        let m = model.map { #","model_id":"\#($0)""# } ?? ""
        return #"{"ts":"\#(ts)","method":"GET","path":"\#(path)","route":"\#(route)","status":\#(status),"bytes":\#(bytes),"range":\#(range),"duration_ms":1.25\#(m),"sdk":"2.3","instance":"a"}"#
    }

    /// Two days of traffic; the comments give the expected sums.
    static let log = [
        line("2026-11-01T10:00:00.000Z", "/latest", "latest", 200, 300),
        line("2026-11-01T10:00:01.000Z", "/latest", "latest", 304, 0),
        line("2026-11-01T10:00:02.000Z", "/models/a.bin", "models", 200, 1000, model: "a"),
        line("2026-11-01T10:00:03.000Z", "/models/a.bin", "models", 304, 0, model: "a"),
        line("2026-11-01T10:00:04.000Z", "/models/a.bin", "models", 206, 400, range: true, model: "a"),
        line("2026-11-02T00:00:00.000Z", "/models/b.bin", "models", 200, 5000, model: "b"),
        line("2026-11-02T00:00:01.000Z", "/models/b.bin", "models", 304, 0, model: "b"),
        line("2026-11-02T00:00:02.000Z", "/models/c.bin", "models", 304, 0, model: "c"),   // size unknown
        line("2026-11-02T00:00:03.000Z", "/healthz", "health", 200, 15),
        line("2026-11-02T23:59:59.999Z", "/models/a.bin", "models", 200, 600, model: "a"), // client went away
    ]

    static func report(since: String? = nil, until: String? = nil) throws -> TrafficReport {
        var r = TrafficReport(since: since, until: until)
        for l in log { r.add(try EgressLogRecord(jsonLine: l)) }
        return r
    }

    @Test func report_aggregatesByDayModelRoute_SPEC6_SPEC7_2() throws {
        let r = try Self.report()
        #expect(r.total == TrafficCounter(bytes: 7315, requests: 10))
        #expect(r.byDay == ["2026-11-01": TrafficCounter(bytes: 1700, requests: 5),
                            "2026-11-02": TrafficCounter(bytes: 5615, requests: 5)])
        #expect(r.byModel == ["a": TrafficCounter(bytes: 2000, requests: 4), "b": TrafficCounter(bytes: 5000, requests: 2),
                              "c": TrafficCounter(bytes: 0, requests: 1)])
        #expect(r.byRoute == ["latest": TrafficCounter(bytes: 300, requests: 2), "models": TrafficCounter(bytes: 7000, requests: 7),
                              "health": TrafficCounter(bytes: 15, requests: 1)])
    }

    @Test func report_counts304sAndBytesSaved_SPEC7_2() throws {
        let r = try Self.report()
        #expect(r.notModified == 4)
        // /latest 300 + a.bin 1000 (largest full 200, not the cut-short 600) + b.bin 5000; c.bin unknown.
        #expect(r.bytesSaved.bytes == 6300)
        #expect(r.bytesSaved.unknown == 1)
    }

    @Test func report_countsRangeResumes_SPEC7_2() throws {
        #expect(try Self.report().rangeResumes == TrafficCounter(bytes: 400, requests: 1))
    }

    @Test func report_projectsMeanDailyTimes30_SPEC7_2() throws {
        let r = try Self.report()
        #expect(r.coveredDays == 2)
        #expect(r.monthlyProjection == Traffic(bytes: 7315 * 30 / 2, requests: 150))   // 109,725 B
    }

    @Test func report_sinceUntilAreInclusiveDays() throws {
        let day2 = try Self.report(since: "2026-11-02")
        #expect(day2.total == TrafficCounter(bytes: 5615, requests: 5))
        #expect(day2.coveredDays == 1)
        let day1 = try Self.report(until: "2026-11-01")
        #expect(day1.total == TrafficCounter(bytes: 1700, requests: 5))
    }

    @Test func report_summaryPricesLoggedAndProjectedTraffic() throws {
        let s = try Self.report().summary(providers: Fixtures.all, freeTier: false, gbUnit: .si)
        #expect(s.byDay.map(\.key) == ["2026-11-01", "2026-11-02"])
        #expect(s.byModel.map(\.key) == ["b", "a", "c"])
        #expect(s.cost.map(\.id) == s.projectedCost.map(\.id))
        #expect(s.cost.first { $0.id == "cloudflare-r2" }?.requests == Money(cents: 36))   // 10 reads round up to 1 M
        #expect(s.firstDay == "2026-11-01" && s.lastDay == "2026-11-02")
    }

    @Test("record parsing rejects bad lines", arguments: [
        ("{", "invalid JSON"), ("[]", "not a JSON object"), (#"{"path":"/","route":"x","status":200,"bytes":1}"#, "'ts' is missing"),
        (#"{"ts":"yesterday","path":"/","route":"x","status":200,"bytes":1}"#, "'ts' must be"),
        (#"{"ts":"2026-11-01T00:00:00Z","path":"/","route":"x","status":200,"bytes":-1}"#, "'bytes' must be"),
        (#"{"ts":"2026-11-01T00:00:00Z","path":"/","route":"x","status":"200","bytes":1}"#, "'status' must be"),
    ])
    func record_rejects(_ line: String, _ reason: String) {
        #expect {
            try EgressLogRecord(jsonLine: line)
        } throws: { error in
            (error as? AccessLogError)?.reason.contains(reason) ?? false
        }
    }

    @Test func record_parsesAllSpec6Fields_SPEC6() throws {
        let r = try EgressLogRecord(jsonLine: Self.log[4])
        #expect(r == EgressLogRecord(ts: "2026-11-01T10:00:04.000Z", method: "GET", path: "/models/a.bin", route: "models",
                                     status: 206, bytes: 400, range: true, durationMs: 1.25, modelID: "a", sdk: "2.3", instance: "a"))
        #expect(r.day == "2026-11-01")
    }
}

import Testing
@testable import Guardrails

/// SPEC §11.5's report page: self-contained (one inline SVG, no scripts), every decision named.
@Suite struct GuardReportTests {
    static func point(_ at: Int64, _ rule: String?, _ stage: Int, _ next: Int?, t: Double?, c: Double?) -> GuardReport.Point {
        GuardReport.Point(at: at, time: "2026-11-24T03:0\(at):00.000Z", rule: rule, stage: stage, nextStage: next,
                          treatment: .init(clients: 1_000 * Int(at), mean: t), control: .init(clients: 990 * Int(at), mean: c),
                          delta: t.flatMap { t in c.map { t - $0 } }, bound: 0.02)
    }

    @Test func page_hasOneSVG_noScript_andEveryDecisionsRuleAndStage() {
        let report = GuardReport(release: "r<1>", status: "paused_regression", alpha: 0.05, tuningClients: 1_000, points: [
            Self.point(4, nil, 10, nil, t: 0.1, c: 0.5),
            Self.point(1, "advance", 1, 5, t: 0.3, c: 0.31),
            Self.point(2, "no_data", 5, nil, t: nil, c: nil),
            Self.point(3, "pause", 10, nil, t: 0.1, c: 0.5),
        ])
        let html = report.html()
        #expect(html.hasPrefix("<!DOCTYPE html>") && html.hasSuffix("</html>\n"))
        #expect(html.ranges(of: "<svg").count == 1 && html.ranges(of: "</svg>").count == 1)
        #expect(!html.lowercased().contains("<script") && !html.contains("src=") && !html.contains("href="))
        for label in ["advance 1% → 5%", "no_data 5%", "pause 10%"] { #expect(html.contains(label), "\(label)") }
        #expect(html.contains("<td>advance</td><td>1% → 5%</td>") && html.contains("<td>pause</td><td>10%</td>"))
        #expect(html.contains("<td>last evaluation</td><td>10%</td>"))
        #expect(html.contains("r&lt;1&gt;") && !html.contains("r<1>"), "recorded text is escaped")
        // Oldest first: the table follows time, not the order given.
        let advance = html.firstRange(of: "<td>advance</td>")!.lowerBound, pause = html.firstRange(of: "<td>pause</td>")!.lowerBound
        #expect(advance < pause)
        #expect(html.contains("-0.4000 ± 0.0200"), "the last evaluation's Δ̂ ± h₁ card")
    }

    @Test func page_withoutAnyPoint_saysSo() {
        let html = GuardReport(release: "r", status: "collecting", alpha: nil, tuningClients: nil, points: []).html()
        #expect(html.ranges(of: "<svg").count == 1 && html.contains("no decision or evaluation recorded yet"))
    }

    @Test func figure_fourDecimals() {
        #expect(GuardReport.figure(-0.40145) == "-0.4015" || GuardReport.figure(-0.40145) == "-0.4014")
        #expect(GuardReport.figure(0.00004) == "0.0000" && GuardReport.figure(-0.00004) == "0.0000")
        #expect(GuardReport.figure(12.5) == "12.5000" && GuardReport.figure(nil) == "-" && GuardReport.figure(.nan) == "-")
    }
}

/// SPEC §18: the newest event read per instance, from a status document's `events_read`.
@Suite struct GuardReportEventsReadTests {
    @Test func statusDocument_eventsRead_sortedByInstance_absentIsEmpty() throws {
        let document = #"{"release":"r","status":"collecting","events_read":{"ing-b":"2026-12-01T10:00:02.000Z","ing-a":"2026-12-01T10:00:01.000Z"}}"#
        let report = try #require(GuardReport(statusDocument: Array(document.utf8), id: "r"))
        #expect(report.eventsRead.map(\.instance) == ["ing-a", "ing-b"])
        #expect(report.eventsRead.map(\.at) == ["2026-12-01T10:00:01.000Z", "2026-12-01T10:00:02.000Z"])
        #expect(try #require(GuardReport(statusDocument: Array(#"{"release":"r","status":"collecting"}"#.utf8), id: "r")).eventsRead.isEmpty)
    }
}

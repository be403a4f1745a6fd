import Guardrails
import Testing

/// Decision labels under the guard chart never overlap (SPEC §15.1): near labels stack, far ones
/// share the first row.
@Suite struct LabelLayoutTests {
    private func spans(_ ranges: [(Int, Int)]) -> [LabelLayout.Span] { ranges.map { LabelLayout.Span(start: $0.0, end: $0.1) } }

    @Test func labelsCloseInTime_stack_farOnes_shareTheFirstRow() {
        #expect(LabelLayout.rows(spans([(0, 100), (300, 400), (600, 700)])) == [0, 0, 0])
        #expect(LabelLayout.rows(spans([(0, 100), (3, 103), (6, 106)])) == [0, 1, 2])
        // a row frees up once the label in it has ended (plus the gap)
        #expect(LabelLayout.rows(spans([(0, 100), (50, 150), (106, 200)])) == [0, 1, 0])
        #expect(LabelLayout.rows(spans([(0, 100), (50, 150), (105, 200)])) == [0, 1, 2])
    }

    @Test func labelsEndingAtTheirLine_areLaidOutByTheirRealExtent() {
        let right = LabelLayout.span("advance 25% → 50%", x: 900, alignEnd: true)
        #expect(right.end == 900 && right.start < 900 - 100)
        // a label drawn rightwards from 800 runs into one that ends at 900, not into one ending at 790
        let left = LabelLayout.span("srm 25%", x: 800, alignEnd: false)
        #expect(left.start == 800 && left.end > 800 + 40)
        #expect(LabelLayout.rows([left, right]) == [0, 1])
        #expect(LabelLayout.rows([left, LabelLayout.span("advance 25% → 50%", x: 790, alignEnd: true)]) == [0, 0])
    }

    @Test func theChart_growsARowPerStackedLabel_andNoTwoLabelsInARowOverlap() throws {
        let arm = GuardReport.Arm(clients: 10, mean: 0.5)
        func p(_ at: Int64, _ rule: String?) -> GuardReport.Point {
            GuardReport.Point(at: at, time: "t\(at)", rule: rule, stage: 5, nextStage: 10, treatment: arm, control: arm, delta: 0, bound: 0.1)
        }
        let apart = GuardReport(release: "r", status: "healthy", alpha: 0.05, tuningClients: 100, points: [p(0, "advance"), p(1_000_000, nil)])
        let close = GuardReport(release: "r", status: "srm", alpha: 0.05, tuningClients: 100,
                                points: [p(0, "advance"), p(1_000, "srm"), p(2_000, "advance"), p(1_000_000, nil)])
        #expect(apart.chart().contains("height=\"480\"") && close.chart().contains("height=\"510\""))
        #expect(close.chart().components(separatedBy: "class=\"decision-label\"").count - 1 == 3)
    }
}

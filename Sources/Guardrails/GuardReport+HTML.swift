import HTMLPage

/// The report as one self-contained page (`HTMLPage`, plus one inline SVG), in the style of the
/// egress cost report.
extension GuardReport {
    public func html() -> String {
        let last = points.last
        var body = "<h1>Guarded rollout \(HTMLPage.escape(release))</h1>\n"
        body += "<p class=\"sub\">status \(HTMLPage.escape(status)) · alpha \(Self.figure(alpha)) · tuning \(tuningClients.map(String.init) ?? "-") clients</p>\n"
        body += "<div class=\"cards\">"
        body += HTMLPage.card("Status", status, last.map { "stage \($0.stage)%" } ?? "no evaluation yet")
        body += HTMLPage.card("Treatment", Self.figure(last?.treatment.mean), "\(last?.treatment.clients ?? 0) clients")
        body += HTMLPage.card("Control", Self.figure(last?.control.mean), "\(last?.control.clients ?? 0) clients")
        body += HTMLPage.card("Δ̂ ± h₁", "\(Self.figure(last?.delta)) ± \(Self.figure(last?.bound))", "treatment − control")
        body += "</div>\n<h2>Arm means and Δ̂ with its sequential bound</h2>\n" + chart()
        body += "<p class=\"note\">Points are the evaluator's recorded decisions (through the server, the last 20) and the last "
            + "evaluation; evaluations that decided nothing are not recorded, so lines join recorded points only. "
            + "Dashed lines mark decisions (rule, stage → next stage; red: pause or SRM).</p>\n"
        body += table()
        return HTMLPage.document(title: "modeld guarded rollout \(release)", body: body)
    }

    static let treatmentColor = "#3e7cb1", controlColor = "#d9822b", deltaColor = "#2f9e72"

    /// Two panels over one time axis: the arm means above, Δ̂ inside its band Δ̂ ± h₁ below;
    /// the decisions' labels under them, in as many rows as keep them apart (`LabelLayout`).
    public func chart() -> String {
        let width = 960, left = 70, right = 20, panelH = 170, top1 = 40, top2 = 270, rowH = 15
        let plotW = width - left - right
        let t0 = points.first?.at ?? 0, span = (points.last?.at ?? 0) - t0
        func x(_ p: Point) -> Int { span == 0 ? left + plotW / 2 : left + Int(Double(p.at - t0) / Double(span) * Double(plotW)) }
        // Labels near the right edge end at their line, so they stay inside the chart.
        let decisions = points.filter { $0.rule != nil }.map { p in
            (point: p, x: x(p), nearRight: x(p) > left + plotW * 4 / 5, text: Self.decisionLabel(p))
        }
        let rows = LabelLayout.rows(decisions.map { LabelLayout.span($0.text, x: $0.nearRight ? $0.x - 3 : $0.x + 3, alignEnd: $0.nearRight) })
        let height = top2 + panelH + 40 + (rows.max() ?? 0) * rowH

        var svg = "<svg width=\"\(width)\" height=\"\(height)\" viewBox=\"0 0 \(width) \(height)\" role=\"img\" aria-label=\"arm means and delta over time\">"
        let means = points.flatMap { [$0.treatment.mean, $0.control.mean].compactMap { $0 } }
        let meanAxis = Axis(values: means, top: top1, height: panelH)
        let band: [Double] = points.flatMap { (p: Point) -> [Double] in
            guard let d = p.delta else { return [] }
            let h = p.bound ?? 0
            return [d, d - h, d + h]
        }
        let deltaAxis = Axis(values: band + [0], top: top2, height: panelH)
        svg += meanAxis.grid(left: left, right: width - right) + deltaAxis.grid(left: left, right: width - right)
        svg += "<text x=\"\(left)\" y=\"\(top1 - 8)\">arm means: <tspan fill=\"\(Self.treatmentColor)\">■ treatment</tspan> <tspan fill=\"\(Self.controlColor)\">■ control</tspan></text>"
        svg += "<text x=\"\(left)\" y=\"\(top2 - 8)\">Δ̂ = treatment − control, <tspan fill=\"\(Self.deltaColor)\">band Δ̂ ± h₁</tspan></text>"

        // Decisions first, so the data draws over their markers.
        for (d, row) in zip(decisions, rows) {
            let px = d.x, labelY = top2 + panelH + 16 + row * rowH
            let stroke = d.point.rule == "pause" || d.point.rule == "srm" ? "#c53030" : "#9aa5b1"
            // The line runs down to its label's row, so a stacked label still points at its decision.
            svg += "<line x1=\"\(px)\" y1=\"\(top1)\" x2=\"\(px)\" y2=\"\(labelY - 4)\" stroke=\"\(stroke)\" stroke-dasharray=\"4 3\"/>"
            svg += "<text class=\"decision-label\" x=\"\(d.nearRight ? px - 3 : px + 3)\" y=\"\(labelY)\"\(d.nearRight ? " text-anchor=\"end\"" : "")>"
                + "\(HTMLPage.escape(d.text))</text>"
        }
        let withDelta = points.filter { $0.delta != nil }
        if !withDelta.isEmpty {
            let upper = withDelta.map { "\(x($0)),\(deltaAxis.y($0.delta! + ($0.bound ?? 0)))" }
            let lower = withDelta.reversed().map { "\(x($0)),\(deltaAxis.y($0.delta! - ($0.bound ?? 0)))" }
            svg += "<polygon points=\"\((upper + lower).joined(separator: " "))\" fill=\"\(Self.deltaColor)\" fill-opacity=\"0.18\" stroke=\"\(Self.deltaColor)\" stroke-opacity=\"0.4\"/>"
        }
        svg += "<line x1=\"\(left)\" y1=\"\(deltaAxis.y(0))\" x2=\"\(width - right)\" y2=\"\(deltaAxis.y(0))\" stroke=\"#52606d\"/>"
        svg += Self.series(points.map { p in p.delta.map { (x(p), deltaAxis.y($0), "Δ̂ \(Self.figure($0)) ± \(Self.figure(p.bound))") } }, Self.deltaColor)
        svg += Self.series(points.map { p in p.treatment.mean.map { (x(p), meanAxis.y($0), "treatment \(Self.figure($0)), \(p.treatment.clients) clients") } }, Self.treatmentColor)
        svg += Self.series(points.map { p in p.control.mean.map { (x(p), meanAxis.y($0), "control \(Self.figure($0)), \(p.control.clients) clients") } }, Self.controlColor)
        if let first = points.first, let last = points.last {
            svg += "<text x=\"\(left)\" y=\"\(height - 4)\">\(HTMLPage.escape(first.time))</text>"
            if span > 0 { svg += "<text x=\"\(width - right)\" y=\"\(height - 4)\" text-anchor=\"end\">\(HTMLPage.escape(last.time))</text>" }
        } else {
            svg += "<text x=\"\(left + plotW / 2)\" y=\"\(top1 + panelH / 2)\" text-anchor=\"middle\">no decision or evaluation recorded yet</text>"
        }
        return svg + "</svg>\n"
    }

    /// A line through the points that have a value, with a dot (and a tooltip) at each.
    static func series(_ values: [(x: Int, y: Int, title: String)?], _ color: String) -> String {
        let present = values.compactMap { $0 }
        guard !present.isEmpty else { return "" }
        var svg = "<polyline points=\"\(present.map { "\($0.x),\($0.y)" }.joined(separator: " "))\" fill=\"none\" stroke=\"\(color)\" stroke-width=\"2\"/>"
        for v in present {
            svg += "<circle cx=\"\(v.x)\" cy=\"\(v.y)\" r=\"3.5\" fill=\"\(color)\"><title>\(HTMLPage.escape(v.title))</title></circle>"
        }
        return svg
    }

    /// A vertical scale fitted to its values, with four grid steps.
    struct Axis {
        let low: Double, high: Double, top: Int, height: Int

        init(values: [Double], top: Int, height: Int) {
            let lo = values.min() ?? 0, hi = values.max() ?? 1
            let pad = hi > lo ? (hi - lo) * 0.08 : max(abs(hi) * 0.1, 0.01)
            (low, high, self.top, self.height) = (lo - pad, hi + pad, top, height)
        }

        func y(_ v: Double) -> Int { top + height - Int(((v - low) / (high - low) * Double(height)).rounded()) }

        func grid(left: Int, right: Int) -> String {
            var svg = ""
            for step in 0...4 {
                let v = low + (high - low) * Double(step) / 4
                svg += "<line x1=\"\(left)\" y1=\"\(y(v))\" x2=\"\(right)\" y2=\"\(y(v))\" stroke=\"#e4e7eb\"/>"
                svg += "<text x=\"\(left - 6)\" y=\"\(y(v) + 4)\" text-anchor=\"end\">\(GuardReport.figure(v))</text>"
            }
            return svg
        }
    }

    static func decisionLabel(_ p: Point) -> String {
        "\(p.rule ?? "last evaluation") \(p.stage)%" + (p.nextStage.map { " → \($0)%" } ?? "")
    }

    public func table() -> String {
        var t = "<table><caption>Recorded decisions and the last evaluation</caption><tr><th>time</th><th>rule</th><th>stage</th>"
            + "<th>treatment n</th><th>mean</th><th>control n</th><th>mean</th><th>Δ̂</th><th>h₁</th></tr>"
        for p in points {
            t += "<tr><td>\(HTMLPage.escape(p.time))</td><td>\(HTMLPage.escape(p.rule ?? "last evaluation"))</td>"
            t += "<td>\(p.stage)%\(p.nextStage.map { " → \($0)%" } ?? "")</td>"
            t += "<td class=\"n\">\(p.treatment.clients)</td><td class=\"n\">\(Self.figure(p.treatment.mean))</td>"
            t += "<td class=\"n\">\(p.control.clients)</td><td class=\"n\">\(Self.figure(p.control.mean))</td>"
            t += "<td class=\"n\">\(Self.figure(p.delta))</td><td class=\"n\">\(Self.figure(p.bound))</td></tr>"
        }
        return t + "</table>\n"
    }

    /// Four decimals, like `experiment status`; Guardrails has no `String(format:)`.
    static func figure(_ value: Double?) -> String {
        guard let value, value.isFinite else { return "-" }
        let scaled = (abs(value) * 10_000).rounded()
        guard scaled < 1e15 else { return "\(value)" }
        let n = Int64(scaled), fraction = String(n % 10_000)
        let sign = value < 0 && n != 0 ? "-" : ""
        return "\(sign)\(n / 10_000)." + String(repeating: "0", count: 4 - fraction.count) + fraction
    }
}

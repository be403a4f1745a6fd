import CivilTime

extension SimulationSummary {
    /// The text form (SPEC §11.6): per run its stages, decision records and final status; then
    /// the shares over runs.
    public func text() -> String {
        var lines: [String] = []
        for (n, run) in runs.enumerated() {
            let full = run.hoursToFull.map { ", 100 % after \(Self.hours($0)) h" } ?? ""
            lines.append("run \(n + 1) (seed \(run.seed)): \(run.finalStatus.rawValue)\(full)")
            for start in run.stageStarts {
                lines.append("  stage \(start.stage) % from \(RFC3339.format(milliseconds: start.at))")
            }
            for line in run.decisions { lines.append("  " + String(decoding: line, as: UTF8.self)) }
        }
        func share(_ k: Int) -> String { "\(k) (\(Self.percent(k, of: runs.count)))" }
        lines.append("\(runs.count) run\(runs.count == 1 ? "" : "s"): promoted \(share(count(.promoted))), paused \(share(count(.paused))), "
            + "stopped by srm \(share(count(.srm))), inconclusive \(share(count(.inconclusive))), "
            + "no_data \(share(count(.noData))), still running \(share(count(.running)))")
        lines.append("runs with an srm decision: \(share(runsRaisingSRM))")
        let p50 = hoursToFull(percentile: 0.5).map { "\(Self.hours($0)) h" } ?? "-"
        let p90 = hoursToFull(percentile: 0.9).map { "\(Self.hours($0)) h" } ?? "-"
        lines.append("hours to 100 %: p50 \(p50), p90 \(p90) (of \(count(.promoted)) promoted)")
        return lines.joined(separator: "\n")
    }

    /// Hours to one decimal (the engine looks every minute).
    private static func hours(_ h: Double) -> String { String(Double((h * 10).rounded()) / 10) }

    private static func percent(_ k: Int, of n: Int) -> String {
        n == 0 ? "0 %" : "\(Double((Double(k) * 1000 / Double(n)).rounded()) / 10) %"
    }
}

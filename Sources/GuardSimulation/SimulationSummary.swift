import GuardRuntime
import JSONSupport

/// SPEC §11.6's figures over runs: how many ended each way, how many raised `srm`, and the
/// p50/p90 hours to 100 % of the runs that got there.
public struct SimulationSummary: Sendable {
    public let runs: [SimulatedRun]

    public init(runs: [SimulatedRun]) { self.runs = runs }

    public func count(_ outcome: SimulatedRun.Outcome) -> Int { runs.count { $0.outcome == outcome } }

    /// Runs with any `srm` decision, however they ended.
    public var runsRaisingSRM: Int { runs.count(where: \.raisedSRM) }

    /// The nearest-rank percentile `p` (0-1) of the promoted runs' hours to 100 %; nil when no
    /// run was promoted (a run still ramping has no time to 100 % to rank).
    public func hoursToFull(percentile p: Double) -> Double? {
        let hours = runs.compactMap(\.hoursToFull).sorted()
        guard !hours.isEmpty else { return nil }
        let rank = Int((p * Double(hours.count)).rounded(.up))
        return hours[min(max(rank, 1), hours.count) - 1]
    }

    /// `--json` (SPEC §11.6).
    public func json() -> [UInt8] {
        var w = JSONWriter(capacity: 4096)
        w.beginObject()
        w.field("runs", runs.count)
        w.key("outcomes")
        w.beginObject()
        for outcome in SimulatedRun.Outcome.allCases { w.field(outcome.rawValue, count(outcome)) }
        w.endObject()
        w.field("srm_decisions", runsRaisingSRM)
        w.key("hours_to_full")
        w.beginObject()
        for (key, p) in [("p50", 0.5), ("p90", 0.9)] {
            w.key(key)
            GuardRecords.number(&w, hoursToFull(percentile: p))
        }
        w.endObject()
        w.key("runs_detail")
        w.beginArray()
        for run in runs {
            w.beginObject()
            w.key("seed")
            w.raw(Array(String(run.seed).utf8))
            w.field("status", run.finalStatus.rawValue)
            w.key("decisions")
            w.beginArray()
            for line in run.decisions { w.raw(line) }
            w.endArray()
            w.endObject()
        }
        w.endArray()
        w.endObject()
        return w.bytes
    }
}

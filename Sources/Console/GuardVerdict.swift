import Guardrails

/// The guard panel's words (SPEC §15.1): a verdict with its numbers ("paused 12:17:49: worse,
/// 27.4 % vs 51.4 %, Δ −0.24 ± 0.23"), and where the stage stands — what still blocks the next
/// one. Pure: the plan, the guard's place, its recorded points and the time come in, text comes
/// out, so every status's wording is unit-tested without a server.
public struct GuardVerdict: Sendable {
    public let plan: GuardPlan
    /// The release's rollout: the guard's stage while it runs.
    public let stage: Int
    /// The recorded decisions and the last evaluation, oldest first (`GuardReport.points`).
    public let points: [GuardReport.Point]

    public init(plan: GuardPlan, stage: Int, points: [GuardReport.Point]) {
        self.plan = plan
        self.stage = stage
        self.points = points
    }

    /// The decision that set the status (the newest one recorded).
    var decision: GuardReport.Point? { points.last { $0.rule != nil } }
    /// The newest figures: the last evaluation's, else the newest decision's.
    var latest: GuardReport.Point? { points.last }

    /// One sentence: what the guard concluded, when, and the figures it concluded it from.
    public var text: String {
        let status = plan.runtime.status
        // A finished guard is judged by the figures of the decision that finished it.
        let d = decision
        func at(_ word: String) -> String { d.map { "\(word) \(Self.clock($0.time))" } ?? word }
        switch status {
        case .collecting:
            guard let p = latest, p.treatment.clients + p.control.clients > 0 else { return "collecting at \(stage) %: no client counted yet" }
            return "collecting at \(stage) %: \(figures(p)) — no verdict before \(Self.count(plan.minClientsPerArm)) clients per arm"
        case .healthy:
            let p = latest
            if let d, d.rule == "advance", let next = d.nextStage {
                return "advanced \(Self.clock(d.time)) to \(next) %: no harm shown" + (p.map { ", " + figures($0) } ?? "")
            }
            return "healthy at \(stage) %: no harm shown" + (p.map { ", " + figures($0) } ?? "")
        case .pausedRegression:
            return at("paused") + ": worse" + ((d ?? latest).map { ", " + figures($0) } ?? "")
        case .srm:
            let p = d ?? latest
            let arms = p.map { ": \(Self.count($0.treatment.clients)) vs \(Self.count($0.control.clients)) clients against 1:1" } ?? ""
            let action = plan.onSRM == .pause ? "the release is paused" : "notified only, the guard keeps watching"
            return at("sample ratio mismatch") + arms + "; " + action
        case .noData:
            let p = d ?? latest
            let arms = p.map { " (\(Self.count($0.treatment.clients)) vs \(Self.count($0.control.clients)))" } ?? ""
            return at("no data") + ": fewer than \(Self.count(plan.minClientsPerArm)) clients per arm after "
                + "\(Self.duration(seconds: plan.noDataSeconds)) at \(stage) %\(arms); holding the stage"
        case .promoted:
            let why = plan.goal == .prove ? "proven better" : "no harm shown"
            return at("promoted") + " to 100 %: \(why)" + ((d ?? latest).map { ", " + figures($0) } ?? "")
        case .inconclusive:
            return at("inconclusive") + ": not proven better within \(Self.duration(seconds: plan.maxSeconds)), holding \(stage) %"
                + ((d ?? latest).map { ", " + figures($0) } ?? "")
        case .stopped:
            return at("stopped") + " by a manual change at \(stage) %" + ((d ?? latest).map { ", last figures " + figures($0) } ?? "")
        }
    }

    /// Where the stage stands while the guard runs: since when, the next stage, and what still
    /// blocks it (soak time left, clients missing per arm). nil once the guard has finished.
    public func progress(nowMillis: Int64) -> String? {
        guard !plan.isFinished else { return nil }
        let index = plan.stages.lastIndex { $0 <= stage }.map { $0 + 1 } ?? 1
        var text = "Stage \(stage) % (\(index) of \(plan.stages.count))"
        let started = plan.runtime.stageStartedAt
        if let started { text += " for \(Self.duration(seconds: Int(max(0, nowMillis - started) / 1000)))" }
        let next: String = plan.stage(after: stage).map { "\($0) %" }
            ?? (plan.goal == .prove ? "promotion to 100 % once proven better" : "promotion to 100 %")
        var blocks: [String] = []
        let soakLeft = started.map { Int64(plan.minStageSeconds) - max(0, nowMillis - $0) / 1000 } ?? Int64(plan.minStageSeconds)
        if soakLeft > 0 { blocks.append("\(Self.duration(seconds: Int(soakLeft))) of soak left") }
        let arms = latest.map { ($0.treatment.clients, $0.control.clients) } ?? (0, 0)
        let missing = [("treatment", arms.0), ("control", arms.1)].filter { $0.1 < plan.minClientsPerArm }
            .map { "\($0.0) \(Self.count(plan.minClientsPerArm - $0.1)) more clients" }
        blocks += missing
        if plan.runtime.status == .srm { blocks.append("the sample ratio mismatch") }
        text += ". Next: \(next)"
        text += blocks.isEmpty ? " at the next evaluation" : " — waiting for " + Self.list(blocks)
        return text + "."
    }

    /// Means as percentages for a rate, plain numbers for a mean; Δ with as many decimals as
    /// its bound needs for two significant digits.
    func figures(_ p: GuardReport.Point) -> String {
        let means = "\(mean(p.treatment.mean)) vs \(mean(p.control.mean))"
        guard let delta = p.delta else { return means }
        let bound = p.bound ?? 0
        var decimals = 2, scaled = bound * 100
        while scaled > 0, scaled < 10, decimals < 6 { decimals += 1; scaled *= 10 }
        return means + ", Δ \(Self.signed(delta, decimals)) ± \(Self.fixed(bound, decimals))"
    }

    private func mean(_ value: Double?) -> String {
        guard let value else { return "–" }
        return plan.metric.kind == .rate ? Self.fixed(value * 100, 1) + " %" : Self.fixed(value, 3)
    }

    /// `hh:mm:ss` of an RFC 3339 time (UTC, as recorded); the text itself when it is not one.
    static func clock(_ rfc3339: String) -> String {
        let scalars = Array(rfc3339.unicodeScalars)
        guard scalars.count >= 19, scalars[10] == "T" else { return rfc3339 }
        return String(String.UnicodeScalarView(scalars[11..<19]))
    }

    /// `2 d 3 h`, `5 h 12 min`, `4 min 10 s`, `12 s`: the two largest units.
    static func duration(seconds: Int) -> String {
        let units = [("d", 86_400), ("h", 3_600), ("min", 60), ("s", 1)]
        guard let first = units.firstIndex(where: { seconds >= $0.1 }) else { return "0 s" }
        var parts = ["\(seconds / units[first].1) \(units[first].0)"]
        if first + 1 < units.count {
            let rest = seconds % units[first].1 / units[first + 1].1
            if rest > 0 { parts.append("\(rest) \(units[first + 1].0)") }
        }
        return parts.joined(separator: " ")
    }

    /// `1,000`.
    static func count(_ n: Int) -> String {
        let digits = Array(String(n))
        var out = ""
        for (i, c) in digits.enumerated() {
            if i > 0, (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(c)
        }
        return out
    }

    static func list(_ items: [String]) -> String {
        items.count <= 1 ? items.joined() : items.dropLast().joined(separator: ", ") + " and " + items.last!
    }

    /// Guardrails has no `String(format:)`: fixed decimals, rounded half away from zero.
    static func fixed(_ value: Double, _ decimals: Int) -> String {
        guard value.isFinite else { return "–" }
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let n = Int64((abs(value) * scale).rounded())
        let whole = n / Int64(scale), fraction = String(n % Int64(scale))
        let sign = value < 0 && n != 0 ? "−" : ""
        return decimals == 0 ? "\(sign)\(whole)" : "\(sign)\(whole)." + String(repeating: "0", count: decimals - fraction.count) + fraction
    }

    static func signed(_ value: Double, _ decimals: Int) -> String {
        let text = fixed(value, decimals)
        return text.hasPrefix("−") || text.allSatisfy({ $0 == "0" || $0 == "." }) ? text : "+" + text
    }
}

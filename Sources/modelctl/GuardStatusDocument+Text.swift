import CivilTime
import Foundation
import GuardRuntime

/// The §11.5 guard status document (`GET /admin/models/ID/guard`, the server's own type) read
/// for people: `modelctl experiment status` prints it whole, `modelctl show` its figures line.
extension GuardStatusDocument.Content {
    /// A document that lacks a key the SPEC always writes is refused naming the key (exit 1).
    init(document body: [UInt8]) throws(CLIFailure) {
        do throws(Invalid) { try self.init(json: body) } catch {
            throw CLIFailure("unexpected guard status document (\(error.message)): \(String(decoding: body.prefix(200), as: UTF8.self))")
        }
    }

    /// `treatment 1204 clients mean 0.0998, control 1188 clients mean 0.5012, delta -0.4014 ± 0.0412, pending 3`
    var figuresLine: String {
        func arm(_ name: String) -> String {
            let a = arms[name]
            return "\(name) \(a?.clients ?? 0) clients mean \(Self.figure(a?.mean))"
        }
        return "\(arm("treatment")), \(arm("control")), delta \(Self.figure(delta)) ± \(Self.figure(bound)), pending \(pendingClients)"
    }

    /// The whole document as aligned lines; `now` (epoch ms) gives the time in stage.
    func text(now: Int64) -> String {
        var lines: [(String, String)] = [("release", release), ("status", status)]
        var stageText = "\(stage)%"
        if let stageStartedAt, let started = RFC3339.parse(stageStartedAt) {
            stageText += " for \(Self.duration(milliseconds: now - started)) (since \(stageStartedAt))"
        }
        lines.append(("stage", stageText))
        for name in ["treatment", "control"] {
            let a = arms[name]
            lines.append((name, "\(a?.clients ?? 0) clients, mean \(Self.figure(a?.mean))"))
        }
        lines.append(("delta", "\(Self.figure(delta)) ± \(Self.figure(bound)) (alpha \(Self.figure(alpha)), tuning \(tuningClients) clients)"))
        lines.append(("pending", "\(pendingClients) clients"))
        if let srm {
            // p to 4 significant digits: a mismatch lives below 0.001.
            let p = srm.pValue.map { String(format: "%.4g", $0) } ?? "-"
            let cohorts = srm.cohorts.isEmpty ? "none settled" : srm.cohorts.map { "\($0)%" }.joined(separator: ", ")
            lines.append(("srm", "treatment \(srm.treatment), control \(srm.control) clients, p \(p) (cohorts \(cohorts))"))
        }
        lines.append(("evaluated", evaluatedAt ?? "never"))
        // SPEC §18: how far each instance's events were read (the lag of a bucket-fed guard).
        if let eventsRead, !eventsRead.isEmpty {
            lines.append(("events read", eventsRead.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")))
        }
        lines.append(("decisions", decisions.isEmpty ? "none" : "last \(decisions.count)"))
        let width = (lines.map(\.0.count).max() ?? 0) + 2
        var out = lines.map { ($0.0 + ":").padding(toLength: width, withPad: " ", startingAt: 0) + $0.1 }
        for d in decisions {
            out.append("  \(d.ts)  \(d.rule) at \(d.stage)%\(d.nextStage.map { " → \($0)%" } ?? "")  delta \(Self.figure(d.delta)) ± \(Self.figure(d.bound))")
        }
        return out.joined(separator: "\n")
    }

    private static func figure(_ value: Double?) -> String { value.map { String(format: "%.4f", $0) } ?? "-" }

    /// `3d4h`, `2h05m`, `4m09s`, `12s`: precise enough to judge a stage's progress.
    static func duration(milliseconds ms: Int64) -> String {
        let s = max(0, ms / 1000)
        let (d, h, m) = (s / 86_400, s / 3600 % 24, s / 60 % 60)
        if d > 0 { return "\(d)d\(h)h" }
        func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
        if h > 0 { return "\(h)h\(two(m))m" }
        if m > 0 { return "\(m)m\(two(s % 60))s" }
        return "\(s)s"
    }
}

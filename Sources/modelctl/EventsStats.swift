import ArgumentParser
import EventStore
import Foundation

struct EventsStats: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Outcome counts and rates per model with 95% Wilson intervals."
    )

    @Option(help: "Data directory (holds events/).")
    var dataDir: String
    @Option(help: "Only events with this name.")
    var name: String?
    @Option(help: "GROUP,OUTCOME fields: rates of OUTCOME values within each GROUP value.")
    var by = "model_id,outcome"
    @Flag(help: "Machine-readable JSON output.")
    var json = false

    func run() throws {
        try failing {
            let fields = by.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 2, fields.allSatisfy({ !$0.isEmpty }), fields[0] != fields[1] else {
                throw CLIFailure("--by \(by): expected two different field names, e.g. model_id,outcome", exitCode: 2)
            }
            let directory = try EventsCommand.directory(dataDir: dataDir)
            var stats = OutcomeStats(groupField: fields[0], outcomeField: fields[1], name: name)
            do {
                _ = try EventExport(directory: directory).forEach { stats.add($0.root.value) }
            } catch {
                throw CLIFailure("reading \(directory): \(error)")
            }
            let out = EventsStdout()
            out.append(json ? try renderJSON(stats) : renderTable(stats))
            out.flush()
        }
    }

    private func renderJSON(_ stats: OutcomeStats) throws -> String {
        let groups: [[String: Any]] = stats.groups.map { g in
            ["key": g.key, "events": g.events, "outcomes": g.outcomes.map { o in
                ["value": o.value, "count": o.count, "rate": o.rate, "ci95_low": o.low, "ci95_high": o.high] as [String: Any]
            }]
        }
        var document: [String: Any] = ["group_by": stats.groupField, "outcome_field": stats.outcomeField, "groups": groups]
        if let name { document["name"] = name }
        let data = try JSONSerialization.data(withJSONObject: document, options: [.sortedKeys])
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    private func renderTable(_ stats: OutcomeStats) -> String {
        var rows = [[stats.groupField, "events", stats.outcomeField, "count", "rate", "95% CI"]]
        for g in stats.groups {
            for o in g.outcomes {
                rows.append([g.key, String(g.events), o.value, String(o.count), percent(o.rate),
                             "\(percent(o.low)) – \(percent(o.high))"])
            }
        }
        let widths = (0..<rows[0].count).map { c in rows.map { $0[c].count }.max()! }
        return rows.map { row in
            row.enumerated().map { c, cell in
                let pad = String(repeating: " ", count: widths[c] - cell.count)
                return c == 1 || c == 3 || c == 4 ? pad + cell : cell + pad
            }.joined(separator: "  ").trimmingCharacters(in: .whitespaces)
        }.joined(separator: "\n") + "\n"
    }

    private func percent(_ v: Double) -> String { String(format: "%.2f%%", v * 100) }
}

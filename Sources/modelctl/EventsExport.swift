import ArgumentParser
import EventStore

struct EventsExport: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Stream events to stdout, deduplicated by (client_id, batch_id)."
    )

    @Option(help: "Data directory (holds events/).")
    var dataDir: String
    @Option(help: "First UTC day, YYYY-MM-DD (inclusive).")
    var since: String?
    @Option(help: "Last UTC day, YYYY-MM-DD (inclusive).")
    var until: String?
    @Option(help: "jsonl (stored lines as they are) or csv.")
    var format = "jsonl"

    static let csvColumns = ["received_at", "instance", "client_id", "batch_id", "seq", "sdk",
                             "name", "ts", "model_id", "outcome", "value", "props"]

    func run() throws {
        try failing {
            guard format == "jsonl" || format == "csv" else {
                throw CLIFailure("--format \(format): expected jsonl or csv", exitCode: 2)
            }
            try EventsCommand.checkDay(since, "--since")
            try EventsCommand.checkDay(until, "--until")
            let directory = try EventsCommand.directory(dataDir: dataDir)
            let out = EventsStdout()
            let csv = format == "csv"
            if csv { out.append(Self.csvColumns.joined(separator: ",") + "\n") }
            do {
                _ = try EventExport(directory: directory, since: since, until: until).forEach { event in
                    if csv {
                        out.append(Self.csvColumns.map { Self.csvField(event, $0) }.joined(separator: ",") + "\n")
                    } else {
                        out.append(event.bytes)
                        out.append(CollectionOfOne(0x0A))
                    }
                }
            } catch {
                out.flush()
                throw CLIFailure("reading \(directory): \(error)")
            }
            out.flush()
        }
    }

    /// Strings as their value, other JSON values as their stored text; quoted per RFC 4180 when needed.
    static func csvField(_ event: StoredEvent, _ field: String) -> String {
        let text: String
        switch event[field] {
        case nil, .null?: return ""
        case .string(let s)?: text = s
        default: text = String(decoding: event.rawJSON(field) ?? [], as: UTF8.self)
        }
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}

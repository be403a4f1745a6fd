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
            if csv { out.append(EventCSV.header) }
            do {
                _ = try EventExport(directory: directory, since: since, until: until).forEach { event in
                    if csv {
                        out.append(EventCSV.row(event))
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
}

import ArgumentParser
import EventShipping
import EventStore
import Foundation

struct EventsExport: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Stream events to stdout, deduplicated by (client_id, batch_id)."
    )

    @Option(help: "Data directory (holds events/).")
    var dataDir: String?
    @Option(help: ArgumentHelp("Read shipped segments from s3://BUCKET[/PREFIX] (as `events ship` wrote them) instead of a data directory.", valueName: "s3-url"))
    var from: String?
    @OptionGroup var connection: ObjectStorageConnection
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
            let directory: String
            switch (dataDir, from) {
            case (let dataDir?, nil): directory = try EventsCommand.directory(dataDir: dataDir)
            case (nil, let from?):
                let (client, prefix) = try connection.client(for: from, flag: "--from")
                do throws(ShipFailure) { directory = try ShippedSegments.download(bucket: client, prefix: prefix, since: since, until: until) } catch {
                    throw CLIFailure(error.message)
                }
            default: throw CLIFailure("give exactly one of --data-dir and --from", exitCode: 2)
            }
            // Best-effort cleanup of our scratch copy; the export's own outcome is what counts.
            defer { if from != nil { try? FileManager.default.removeItem(atPath: directory) } }
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

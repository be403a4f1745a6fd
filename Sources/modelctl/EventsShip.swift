import ArgumentParser
import EventShipping
import Foundation

/// `modelctl events ship` (SPEC §9.1): sealed event segments to object storage, each once.
struct EventsShip: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ship", abstract: "Upload sealed event segments, gzip-compressed, to S3-compatible object storage.",
        discussion: "A segment is sealed once a newer segment of its instance exists or no running instance holds "
            + "its lock. Objects are PREFIX/events/dt=YYYY-MM-DD/<instance>-<NNNNNN>.jsonl.gz, created with "
            + "If-None-Match: *; what shipped is recorded in DATA_DIR/shipped.jsonl. Local segments are never deleted.")

    @Option(help: "Data directory (holds events/ and shipped.jsonl).") var dataDir: String
    @OptionGroup var storage: ObjectStorageOptions
    @Flag(help: "Keep running: ship newly sealed segments every --interval seconds; failures are retried.") var watch = false
    @Option(help: "Seconds between --watch passes.") var interval = 10
    @Flag(help: "Print {\"shipped\":n,\"skipped\":n,\"bytes\":n} per pass.") var json = false

    func validate() throws {
        if interval < 1 { throw ValidationError("--interval must be at least 1") }
    }

    func run() throws {
        try failing {
            _ = try EventsCommand.directory(dataDir: dataDir)
            let (client, prefix) = try storage.client()
            let shipper = EventShipper(bucket: client, prefix: prefix, dataDir: dataDir)
            guard watch else {
                do throws(ShipFailure) { return report(try shipper.run()) } catch { throw CLIFailure(error.message) }
            }
            while true {
                // A failed pass (bucket down, disk error) is reported and tried again next time:
                // the ledger only records finished uploads, so nothing is skipped.
                do throws(ShipFailure) { report(try shipper.run()) } catch { printError("modelctl: \(error.message)") }
                sleep(UInt32(interval))
            }
        }
    }

    private func report(_ summary: EventShipper.Summary) {
        print(json ? summary.json : "shipped \(summary.shipped) segments (\(summary.bytes) bytes) to \(storage.to); "
            + "\(summary.alreadyShipped) already shipped")
        fflush(nil)
    }
}

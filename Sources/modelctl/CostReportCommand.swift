import ArgumentParser
import EgressCost
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `modelctl cost report` (SPEC §7.2): streams access logs (SPEC §6) into a TrafficReport.
struct CostReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Bytes, requests and cost of the traffic in access logs, with a monthly projection.",
        discussion: """
        Reads JSON lines; a torn (unterminated, unparseable) final line is skipped, a bad line \
        anywhere else fails naming FILE:LINE. --since/--until are inclusive UTC days (YYYY-MM-DD).
        """
    )

    @Option(name: .customLong("access-log"), parsing: .upToNextOption, help: "Access-log files.")
    var accessLogs: [String] = []
    @Option(help: "First UTC day to include (YYYY-MM-DD).")
    var since: String?
    @Option(help: "Last UTC day to include (YYYY-MM-DD).")
    var until: String?
    @OptionGroup var pricing: PricingOptions
    @Option(help: "table, json, csv or html.")
    var format = "table"
    @Option(help: "Write the report to FILE instead of stdout.")
    var out: String?

    func run() throws {
        try failing {
            let format = try outputFormat(format, allowed: OutputFormat.allCases)
            guard !accessLogs.isEmpty else { throw CLIFailure("missing --access-log FILE…", exitCode: 2) }
            for (name, day) in [("--since", since), ("--until", until)] {
                if let day, !EgressLogRecord.isDay(day) {
                    throw CLIFailure("\(name) must be a day YYYY-MM-DD, not '\(day)'", exitCode: 2)
                }
            }
            if let since, let until, since > until { throw CLIFailure("--since is after --until", exitCode: 2) }
            let providers = try pricing.providers()
            let gbUnit = try pricing.unit()

            var report = TrafficReport(since: since, until: until)
            for path in accessLogs { try readAccessLog(path) { report.add($0) } }
            let summary = report.summary(providers: providers, freeTier: pricing.freeTier, gbUnit: gbUnit)
            let text = switch format {
            case .json: ReportRenderer.json(summary)
            case .csv: ReportRenderer.csv(summary)
            case .html: ReportRenderer.html(summary)
            case .table: ReportRenderer.table(summary)
            }
            if let out {
                do { try text.write(toFile: out, atomically: true, encoding: .utf8) } catch {
                    throw CLIFailure("cannot write \(out): \(error.localizedDescription)")
                }
            } else {
                printOutput(text)
            }
        }
    }
}

/// Feeds an access log (SPEC §6) to `add` one record at a time (constant memory whatever the
/// log size): `cost report` and `--transfer-ratio-from`.
func readAccessLog(_ path: String, _ add: (EgressLogRecord) -> Void) throws {
    guard let file = fopen(path, "r") else {
        throw CLIFailure("cannot open \(path): \(String(cString: strerror(errno)))")
    }
    defer { fclose(file) }
    var buffer: UnsafeMutablePointer<CChar>?
    var capacity = 0
    defer { free(buffer) }
    var lineNumber = 0
    while true {
        let length = getline(&buffer, &capacity, file)
        guard length >= 0, let buffer else { break }
        lineNumber += 1
        let bytes = UnsafeRawBufferPointer(start: buffer, count: length)
        let terminated = bytes.last == UInt8(ascii: "\n")
        let line = String(decoding: terminated ? bytes.dropLast() : bytes[...], as: UTF8.self)
        if line.allSatisfy({ $0 == " " || $0 == "\r" }) { continue }
        do {
            add(try EgressLogRecord(jsonLine: line))
        } catch {
            // A crash mid-write leaves one unterminated half line at the end: skip it (SPEC §5, §6).
            if !terminated, feof(file) != 0 {
                printError("modelctl: \(path):\(lineNumber): skipped torn final line")
                break
            }
            throw CLIFailure("\(path):\(lineNumber): \(error.reason)")
        }
    }
    if ferror(file) != 0 { throw CLIFailure("cannot read \(path): \(String(cString: strerror(errno)))") }
}

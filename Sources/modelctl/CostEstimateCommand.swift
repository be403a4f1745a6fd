import ArgumentParser
import EgressCost

/// `modelctl cost estimate` (SPEC §7.2).
struct CostEstimateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "estimate",
        abstract: "Price a month of downloads (and update checks) on every provider, cheapest first.",
        discussion: """
        SIZE: bytes, or a number with a unit: KB MB GB TB (10^3…) or KiB MiB GiB TiB (2^10…), \
        case-insensitive. Polls: installs × polls-per-day × 30, each --poll-bytes \
        (default \(EstimateInputs.defaultPollBytes) B, a typical /latest body) and one request.
        """
    )

    @Option(help: "Downloads in the month.")
    var downloads: String?
    @Option(help: "Size of the model file (e.g. 1MB, 1MiB, 5GB, 1048576).")
    var size: String?
    @Option(help: "Installs polling for updates.")
    var installs: String?
    @Option(help: "Update checks per install per day.")
    var pollsPerDay: String?
    @Option(help: "Bytes of one update-check response (SIZE).")
    var pollBytes: String?
    @OptionGroup var pricing: PricingOptions
    @Option(help: "table, json or csv.")
    var format = "table"

    func run() throws {
        try failing {
            let format = try outputFormat(format, allowed: [.table, .json, .csv])
            let inputs = try readInputs()
            let estimate: Estimate
            do { estimate = try Estimator.estimate(inputs, providers: try pricing.providers()) } catch let e as EstimateError {
                throw CLIFailure(e.message, exitCode: 2)
            }
            switch format {
            case .json: printOutput(EstimateRenderer.json(estimate))
            case .csv: printOutput(EstimateRenderer.csv(estimate))
            default: printOutput(EstimateRenderer.table(estimate))
            }
        }
    }

    func readInputs() throws -> EstimateInputs {
        guard let downloads else { throw CLIFailure("missing --downloads N", exitCode: 2) }
        guard let size else { throw CLIFailure("missing --size SIZE", exitCode: 2) }
        guard (installs == nil) == (pollsPerDay == nil) else {
            throw CLIFailure("--installs and --polls-per-day go together", exitCode: 2)
        }
        if pollBytes != nil, installs == nil {
            throw CLIFailure("--poll-bytes needs --installs and --polls-per-day", exitCode: 2)
        }
        return EstimateInputs(
            downloads: try count(downloads, "--downloads"), sizeBytes: try bytes(size),
            installs: try installs.map { try count($0, "--installs") } ?? 0,
            pollsPerDay: try pollsPerDay.map { try count($0, "--polls-per-day") } ?? 0,
            pollBytes: try pollBytes.map(bytes) ?? EstimateInputs.defaultPollBytes,
            freeTier: pricing.freeTier, gbUnit: try pricing.unit())
    }
}

func count(_ text: String, _ option: String) throws -> Int64 {
    guard let n = Int64(text), n >= 0 else {
        throw CLIFailure("\(option) must be a whole number ≥ 0, not '\(text)'", exitCode: 2)
    }
    return n
}

func bytes(_ text: String) throws -> Int64 {
    do { return try SizeParser.parse(text) } catch { throw CLIFailure(error.description, exitCode: 2) }
}

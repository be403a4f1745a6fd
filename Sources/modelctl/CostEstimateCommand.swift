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
        (default \(EstimateInputs.defaultPollBytes) B, a typical /latest body) and one request; with \
        --models-per-install N, N requests per poll, or one of N × --poll-bytes with --batched. \
        --cdn-hit-ratio R (0–1, default 0: no CDN) is the share of checks a CDN answers from its cache: \
        CDN rows bill every check, bucket rows only the misses. --mode server: modeld answers the \
        checks, so bucket rows bill none; the misses leave modeld's host, priced as egress on \
        --server-egress (default \(Self.defaultServerEgress)), plus --server-monthly USD stated for its machines.
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
    @Option(help: "Models (channels) each install checks at every poll (default 1).")
    var modelsPerInstall: String?
    @Flag(help: "One request per poll for all of an install's models (POST /check, or the rules index) instead of one per model.")
    var batched = false
    @Option(help: "Share of update checks a CDN answers from its cache, 0–1 (default 0: no CDN).")
    var cdnHitRatio: String?
    @Option(help: "Who answers update checks: static (the bucket, §9.1/§9.2) or server (modeld's /latest).")
    var mode = CheckMode.static.rawValue
    @Option(help: "USD a month for modeld's machines, added to every row (default 0).")
    var serverMonthly: String?
    @Option(help: "Provider whose egress prices check answers leaving modeld in server mode.")
    var serverEgress = Self.defaultServerEgress
    @OptionGroup var pricing: PricingOptions
    @OptionGroup var transfer: TransferRatioOption
    @Option(help: "The models directory whose catalog.json names the files in --transfer-ratio-from's logs.")
    var modelsDir: String?
    @Option(help: "table, json or csv.")
    var format = "table"

    func run() throws {
        try failing {
            let format = try outputFormat(format, allowed: [.table, .json, .csv])
            var inputs = try readInputs()
            inputs.transferRatio = try transfer.ratio(modelsDir: modelsDir)
            let table = try pricing.table()
            if inputs.checkMode == .server {
                guard let host = table.provider(id: serverEgress) else {
                    throw CLIFailure("--server-egress: unknown provider '\(serverEgress)' (known: \(table.providers.map(\.id).joined(separator: ", ")))", exitCode: 2)
                }
                inputs.serverEgress = host
            }
            let estimate: Estimate
            do { estimate = try Estimator.estimate(inputs, providers: try pricing.providers(in: table)) } catch let e as EstimateError {
                throw CLIFailure(e.message, exitCode: 2)
            }
            switch format {
            case .json: printOutput(EstimateRenderer.json(estimate))
            case .csv: printOutput(EstimateRenderer.csv(estimate))
            default: printOutput(EstimateRenderer.table(estimate))
            }
        }
    }

    /// AWS's data-transfer-out ladder (pricing.json's aws-s3 row comes from infracost's generic
    /// AWS data transfer prices, which EC2 pays too): a server on a cloud VM.
    static let defaultServerEgress = "aws-s3"

    func readInputs() throws -> EstimateInputs {
        guard let downloads else { throw CLIFailure("missing --downloads N", exitCode: 2) }
        guard let size else { throw CLIFailure("missing --size SIZE", exitCode: 2) }
        guard (installs == nil) == (pollsPerDay == nil) else {
            throw CLIFailure("--installs and --polls-per-day go together", exitCode: 2)
        }
        if pollBytes != nil, installs == nil {
            throw CLIFailure("--poll-bytes needs --installs and --polls-per-day", exitCode: 2)
        }
        for (given, option) in [(cdnHitRatio != nil, "--cdn-hit-ratio"), (modelsPerInstall != nil, "--models-per-install"),
                                (batched, "--batched")] where given && installs == nil {
            throw CLIFailure("\(option) needs --installs and --polls-per-day", exitCode: 2)
        }
        guard let checkMode = CheckMode(rawValue: mode) else {
            throw CLIFailure("--mode must be static or server, not '\(mode)'", exitCode: 2)
        }
        let ratio = try cdnHitRatio.map { text in
            guard let r = HitRatio(decimal: text) else {
                throw CLIFailure("--cdn-hit-ratio must be a decimal from 0 to 1 with at most 6 decimals, not '\(text)'", exitCode: 2)
            }
            return r
        } ?? .none
        // A batched check in server mode is `POST /check` (SPEC §17.2), which no CDN answers from its cache.
        if batched, checkMode == .server, ratio != .none {
            throw CLIFailure("--batched in server mode is POST /check, which a CDN does not cache: --cdn-hit-ratio must be 0", exitCode: 2)
        }
        let models = try modelsPerInstall.map { (text: String) throws -> Int64 in
            let n = try count(text, "--models-per-install")
            guard n >= 1 else { throw CLIFailure("--models-per-install must be at least 1, not '\(text)'", exitCode: 2) }
            return n
        } ?? 1
        let monthly = try serverMonthly.map { text in
            guard let r = Rate(decimal: text), r.nanoUSD % 10_000_000 == 0 else {
                throw CLIFailure("--server-monthly must be US dollars with at most 2 decimals, not '\(text)'", exitCode: 2)
            }
            return Money(cents: r.nanoUSD / 10_000_000)
        } ?? .zero
        var inputs = EstimateInputs(
            downloads: try count(downloads, "--downloads"), sizeBytes: try bytes(size),
            installs: try installs.map { try count($0, "--installs") } ?? 0,
            pollsPerDay: try pollsPerDay.map { try count($0, "--polls-per-day") } ?? 0,
            pollBytes: try pollBytes.map(bytes) ?? EstimateInputs.defaultPollBytes,
            freeTier: pricing.freeTier, gbUnit: try pricing.unit(),
            cdnHitRatio: ratio, checkMode: checkMode, serverMonthly: monthly)
        inputs.modelsPerInstall = models
        inputs.batched = batched
        return inputs
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

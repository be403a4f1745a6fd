import ArgumentParser
import EgressCost
import Foundation

/// `modelctl cost …` (SPEC §7.2). The arithmetic lives in EgressCost; these commands read
/// files, parse arguments and print.
struct CostCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cost",
        abstract: "Estimate and report egress cost on S3, CloudFront, R2 and others.",
        subcommands: [CostEstimateCommand.self, CostRolloutCommand.self, CostReportCommand.self]
    )
}

/// Pricing options shared by `estimate` and `report`. Values arrive as strings and are
/// checked in `run` so that every usage error is one line and exit 2 (SPEC §7).
struct PricingOptions: ParsableArguments {
    @Option(help: "Provider id, or 'all'.")
    var provider = "all"
    @Flag(inversion: .prefixedNo, help: "Take monthly free allowances off before the tiers.")
    var freeTier = true
    @Option(help: "Bytes per billed GB: provider (each provider's own), si (10^9) or binary (2^30).")
    var gbUnit = GBUnit.provider.rawValue
    @Option(help: "Pricing file (default: ./config/pricing.json, else ../../config/pricing.json beside the executable).")
    var pricing: String?

    func unit() throws -> GBUnit {
        guard let u = GBUnit(rawValue: gbUnit) else {
            throw CLIFailure("--gb-unit must be provider, si or binary, not '\(gbUnit)'", exitCode: 2)
        }
        return u
    }

    /// The providers to price, after loading the pricing file.
    func providers() throws -> [ProviderPricing] { try providers(in: try table()) }

    /// The pricing file, parsed.
    func table() throws -> PriceTable {
        let path = try pricingPath()
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CLIFailure("cannot read pricing file \(path)")
        }
        do { return try PriceTable.parse(json: String(decoding: data, as: UTF8.self)) } catch {
            throw CLIFailure("\(path): \(error.message)")
        }
    }

    /// `--provider` applied to `table`.
    func providers(in table: PriceTable) throws -> [ProviderPricing] {
        if provider == "all" { return table.providers }
        guard let p = table.provider(id: provider) else {
            throw CLIFailure("unknown provider '\(provider)' (known: \(table.providers.map(\.id).joined(separator: ", ")), all)", exitCode: 2)
        }
        return [p]
    }

    /// `--pricing`, else `config/pricing.json` in the working directory, else the
    /// repository's `config/` seen from the executable (`.build/debug/modelctl` and
    /// `.build/<triple>/debug/modelctl` both reach it).
    func pricingPath() throws -> String {
        if let pricing { return pricing }
        let fm = FileManager.default
        var candidates = ["config/pricing.json"]
        let exe = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        // Only a search hint: without /proc the invoked path is the next best guess.
        let realExe = URL(fileURLWithPath: (try? fm.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0])
            .deletingLastPathComponent()
        for dir in [exe, realExe] {
            candidates.append(dir.appendingPathComponent("../../config/pricing.json").standardized.path)
            candidates.append(dir.appendingPathComponent("../../../config/pricing.json").standardized.path)
        }
        guard let found = candidates.first(where: { fm.fileExists(atPath: $0) }) else {
            throw CLIFailure("no pricing file: pass --pricing FILE or run from the repository root (config/pricing.json)", exitCode: 2)
        }
        return found
    }
}

/// Parses `--format`, restricted to the formats a command offers.
func outputFormat(_ text: String, allowed: [OutputFormat]) throws -> OutputFormat {
    guard let f = OutputFormat(rawValue: text), allowed.contains(f) else {
        let names = allowed.map(\.rawValue)
        throw CLIFailure("--format must be \(names.dropLast().joined(separator: ", ")) or \(names.last!), not '\(text)'", exitCode: 2)
    }
    return f
}

/// Writes `text` to stdout in one call.
func printOutput(_ text: String) {
    FileHandle.standardOutput.write(Data(text.utf8))
}

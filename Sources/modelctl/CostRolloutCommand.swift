import ArgumentParser
import EgressCost
import Foundation
import JSONSupport
import ModelCatalog

/// `modelctl cost rollout ID --installs N` (SPEC §7.2): prices one rollout of a published
/// release — its real size × installs × rollout_percent — read from the server
/// (`GET /admin/models/ID`) or, with `--models-dir`, from `catalog.json` on disk.
struct CostRolloutCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rollout",
        abstract: "Price one rollout of a published release: its size × installs × rollout percent.",
        discussion: """
        Each install inside the rollout downloads the release once this month; the download count \
        rounds up (1 % of 150 installs is 2). Update checks are not included: price them with \
        `cost estimate --installs --polls-per-day`. For a release with device-class variants, \
        --mix VARIANT=SHARE (repeatable, or comma-separated) says which share of installs gets \
        each variant's file; the rest get the release's own file.
        """
    )

    @OptionGroup var global: GlobalOptions
    @Argument(help: "Release UUID.") var id: String
    @Option(help: "Installs the release could reach (before the rollout percent).")
    var installs: String?
    @Option(help: "Read the release (and the files --transfer-ratio-from's logs name) from this models directory's catalog.json instead of the server.")
    var modelsDir: String?
    @Option(help: ArgumentHelp("Device mix: share of installs getting a variant, e.g. 8gb=0.3.", valueName: "VARIANT=SHARE"))
    var mix: [String] = []
    @OptionGroup var pricing: PricingOptions
    @OptionGroup var transfer: TransferRatioOption
    @Option(help: "table, json or csv (--json = --format json).")
    var format = "table"

    func validate() throws { try AdminValidation.releaseID(id) }

    /// What the rollout command needs of a release.
    struct Subject {
        let id: String
        let size: Int64
        let rolloutPercent: Int
        let state: String
        let label: String
        /// Live variants' sizes by name (SPEC §3.1).
        var variantSizes: [String: Int64] = [:]
        /// `size` is the mean over a `--mix`, not one file's.
        var isMixMean = false
    }

    func run() throws {
        try failing {
            let format = global.json ? .json : try outputFormat(format, allowed: [.table, .json, .csv])
            guard let installs else { throw CLIFailure("missing --installs N", exitCode: 2) }
            let installCount = try count(installs, "--installs")
            let unit = try pricing.unit()
            let providers = try pricing.providers()
            let transferRatio = try transfer.ratio(modelsDir: modelsDir)
            let deviceMix: DeviceMix
            do throws(EstimateError) { deviceMix = try DeviceMix(parsing: mix) } catch { throw CLIFailure(error.message, exitCode: 2) }
            var release = try fetch()
            let estimate: Estimate
            do {
                release = Subject(id: release.id, size: try deviceMix.meanSize(defaultSize: release.size, variantSizes: release.variantSizes),
                                  rolloutPercent: release.rolloutPercent, state: release.state, label: release.label,
                                  isMixMean: !deviceMix.shares.isEmpty)
                estimate = try Estimator.rollout(
                    sizeBytes: release.size, installs: installCount, rolloutPercent: release.rolloutPercent,
                    providers: providers, freeTier: pricing.freeTier, gbUnit: unit, transferRatio: transferRatio)
            } catch let e as EstimateError {
                throw CLIFailure("release \(release.id): \(e.message)")
            }
            switch format {
            case .json: printOutput(Self.json(estimate, release: release, installs: installCount))
            case .csv: printOutput(EstimateRenderer.csv(estimate))
            default: printOutput(Self.header(estimate, release: release, installs: installCount) + EstimateRenderer.table(estimate))
            }
        }
    }

    func fetch() throws -> Subject {
        if let modelsDir {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: modelsDir, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw CLIFailure("--models-dir \(modelsDir): no such directory")
            }
            let store = CatalogStore(directory: modelsDir, publicBaseURL: "")
            let catalog: Catalog
            do { catalog = try store.load() } catch { throw CLIFailure("\(store.catalogPath): \(error.description)") }
            guard let r = catalog.release(id: id.lowercased()) ?? catalog.release(id: id) else {
                throw CLIFailure("no release \(id) in \(store.catalogPath)")
            }
            var sizes: [String: Int64] = [:]
            for v in r.variants where v.isLive { sizes[v.name] = v.size }
            return Subject(id: r.id, size: r.size, rolloutPercent: r.rolloutPercent, state: r.state.rawValue, label: r.label, variantSizes: sizes)
        }
        let body = try global.adminAPI().release(id)
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        // Not swallowed: reported as the CLI error below (exit 1).
        guard let doc = try? decoder.decode(ReleaseDocument.self, from: Data(body)) else {
            throw CLIFailure("the server's answer for \(id) is not a release")
        }
        guard let size = doc.size, let percent = doc.rolloutPercent else {
            throw CLIFailure("the server's release \(id) has no size or rollout_percent")
        }
        var sizes: [String: Int64] = [:]
        for v in doc.variants ?? [] where v.removedAt == nil { sizes[v.name] = v.size }
        return Subject(id: doc.id, size: size, rolloutPercent: percent, state: doc.state ?? "", label: doc.label ?? "", variantSizes: sizes)
    }

    static func header(_ e: Estimate, release r: Subject, installs: Int64) -> String {
        var line = "Release \(r.id)"
        if !r.label.isEmpty { line += " (\(r.label))" }
        line += ": \(ByteFormat.grouped(r.size)) bytes\(r.isMixMean ? " per download (device mix)" : ""), rollout \(r.rolloutPercent)%"
        if !r.state.isEmpty, r.state != "active" { line += ", \(r.state)" }
        line += " of \(ByteFormat.grouped(installs)) installs = \(ByteFormat.grouped(e.inputs.downloads)) downloads\n"
        return line
    }

    /// `cost estimate`'s JSON with the release and the rollout's installs in front
    /// (`inputs.installs` stays 0: it counts polling installs, and a rollout prices no polls).
    static func json(_ e: Estimate, release r: Subject, installs: Int64) -> String {
        var w = JSONWriter(capacity: 256)
        w.beginObject()
        w.field("id", r.id)
        w.field("size", r.size)
        w.field("rollout_percent", r.rolloutPercent)
        w.field("state", r.state)
        w.field("label", r.label)
        w.field("installs", installs)
        w.endObject()
        let body = EstimateRenderer.json(e)
        return "{\"release\":" + w.string + "," + body.dropFirst()
    }
}

import ArgumentParser
import BucketMirror
import EgressCost
import Foundation
import ModelCatalog
import ModelMirror
import ObjectStorage

/// `modelctl mirror` (SPEC §9.1): pushes the catalog's current state to a bucket — model files
/// first, then signed snapshots, then the JSON pointer — skipping what is already there.
struct MirrorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mirror", abstract: "Mirror model files and the latest JSON to S3-compatible object storage.",
        discussion: "Files first, snapshots next, latest_model_details.json last, so a client never sees a JSON before its "
            + "file. An object is skipped when HEAD shows the same size and x-amz-meta-sha256; immutable objects are "
            + "created with If-None-Match: *.")

    @Option(help: "The models directory.") var modelsDir = "models"
    @OptionGroup var storage: ObjectStorageOptions
    @Option(help: ArgumentHelp("Cache-Control max-age of the JSON pointer (default: latest_max_age_seconds in ./config/modeld.json, else 60).", valueName: "seconds"))
    var maxAge: Int?
    @Option(help: ArgumentHelp("Files above SIZE go multipart (always above 5 GiB).", valueName: "size")) var multipartThreshold = "100MiB"
    @Option(help: ArgumentHelp("Multipart part size (default: max(8 MiB, size/10,000 rounded up to 1 MiB)).", valueName: "size")) var partSize: String?
    @Option(help: ArgumentHelp("Requests in flight at once: HEADs, the parts of a file, a batch of files (never a JSON before its files).",
                               valueName: "n")) var concurrency = 8
    @Flag(help: "Print the plan (one line per object: action, kind, size, key) and change nothing.") var dryRun = false
    @Flag(help: "Keep running: mirror again within seconds of every catalog change or re-signed JSON; failures retry with backoff.")
    var watch = false
    @Flag(help: "Print {\"uploaded\":n,\"skipped\":n,\"deleted\":n,\"bytes\":n}.") var json = false

    func validate() throws {
        if watch && dryRun { throw ValidationError("--watch and --dry-run cannot be combined") }
        if let maxAge, maxAge < 0 { throw ValidationError("--max-age must not be negative") }
        guard (1...64).contains(concurrency) else { throw ValidationError("--concurrency must be 1-64") }
        _ = try size(multipartThreshold, "--multipart-threshold")
        if let partSize {
            let bytes = try size(partSize, "--part-size")
            guard (PartPlan.minPartSize...PartPlan.maxPartSize).contains(bytes) else { throw ValidationError("--part-size must be 5MiB-5GiB") }
        }
    }

    func run() throws {
        try failing {
            let (client, prefix) = try storage.client()
            let mirror = MirrorRunner(client: client, modelsDir: modelsDir, prefix: prefix, pointerMaxAge: try resolvedMaxAge(),
                                      multipartThreshold: try size(multipartThreshold, "--multipart-threshold"),
                                      partSize: try partSize.map { try size($0, "--part-size") }, concurrency: concurrency,
                                      progress: { ProgressBar.forTerminal(total: $0) },  // a line per batch, on a terminal only
                                      notice: { printError("modelctl: " + $0) })
            if watch {
                MirrorWatch(modelsDir: modelsDir).run(pass: { () throws(MirrorFailure) in try pass(mirror) }) { error, wait in
                    printError("modelctl: \(error.message) (mirror retries in \(wait))")
                }
            }
            do throws(MirrorFailure) { try pass(mirror) } catch { throw CLIFailure(error.message, exitCode: error.isUsage ? 2 : 1) }
        }
    }

    /// One mirror run: plan, then (unless --dry-run) upload and delete, then the summary on
    /// stdout. Returns when the next garbage-collected file falls due for deletion.
    @discardableResult
    private func pass(_ mirror: MirrorRunner) throws(MirrorFailure) -> Int64? {
        let pass = try mirror.plan()
        if dryRun {
            for line in pass.uploads.lines { print(line) }
            for key in pass.deletions { print("delete\tmodel\t0\t\(key)") }
            if json { print(MirrorRunner.Summary(pass: pass).json) }
            return nil
        }
        let summary = try mirror.run(pass)
        print(json ? summary.json : "mirrored \(modelsDir) to \(storage.to): \(summary.uploaded) uploaded (\(summary.bytes) bytes), "
            + "\(summary.skipped) skipped, \(summary.deleted) deleted")
        fflush(nil)  // --watch: each pass's summary reaches a pipe at once
        return pass.secondsUntilNextDeletion
    }

    private func size(_ text: String, _ flag: String) throws -> Int64 {
        do { return try SizeParser.parse(text) } catch { throw ValidationError("\(flag): \(error)") }
    }

    /// `--max-age`, else `latest_max_age_seconds` from ./config/modeld.json (read by modeld's own
    /// rules), else 60 (SPEC §9.1).
    private func resolvedMaxAge() throws(CLIFailure) -> Int {
        if let maxAge { return maxAge }
        return try ShippedConfig.load()?.latestMaxAgeSeconds ?? 60
    }
}

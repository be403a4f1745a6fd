import ArgumentParser
import EgressCost
import Foundation
import ModelCatalog

/// `--transfer-ratio R`, or `--transfer-ratio-from LOG…` (SPEC §16, issue #30 item 4): the share
/// of a model's bytes one download transfers when clients fetch packed files and patches.
/// `modelctl pack`/`patch` print it per file; the access log of a modeld that served them gives
/// the fleet's, measured (docs/decisions/cost.md, "Measured transfer ratio").
struct TransferRatioOption: ParsableArguments {
    @Option(help: "Share of the model's bytes one download transfers, over 0 and at most 1 (packs, patches; default 1).")
    var transferRatio: String?
    @Option(parsing: .upToNextOption,
            help: "Measure the transfer ratio from these access logs of a modeld (needs --models-dir: its catalog names the files).")
    var transferRatioFrom: [String] = []

    /// The ratio given or measured; `modelsDir` is the directory whose catalog.json names the
    /// files the logs' paths point to.
    func ratio(modelsDir: String?) throws -> HitRatio {
        if !transferRatioFrom.isEmpty {
            guard transferRatio == nil else { throw CLIFailure("--transfer-ratio and --transfer-ratio-from exclude each other", exitCode: 2) }
            guard let modelsDir else { throw CLIFailure("--transfer-ratio-from needs --models-dir DIR (the catalog of the modeld that wrote the log)", exitCode: 2) }
            return try measured(modelsDir: modelsDir)
        }
        guard let text = transferRatio else { return .all }
        guard let r = HitRatio(decimal: text), r != .none else {
            throw CLIFailure("--transfer-ratio must be a decimal over 0 and at most 1 with at most 6 decimals, not '\(text)'", exitCode: 2)
        }
        return r
    }

    private func measured(modelsDir: String) throws -> HitRatio {
        let store = CatalogStore(directory: modelsDir, publicBaseURL: "")
        let catalog: Catalog
        do { catalog = try store.load() } catch { throw CLIFailure("\(store.catalogPath): \(error.description)") }
        var meter = TransferRatioMeter(objects: Self.objects(of: catalog))
        for path in transferRatioFrom { try readAccessLog(path) { meter.add($0) } }
        let logs = transferRatioFrom.joined(separator: " ")
        guard meter.fullFileBytes > 0 else { throw CLIFailure("\(logs): no model downloads of \(store.catalogPath)'s files to measure") }
        guard let ratio = meter.ratio else {
            throw CLIFailure("\(logs): \(meter.sent.total) bytes sent for downloads worth \(meter.fullFileBytes) as full files: more than a ratio of 1")
        }
        let s = meter.sent
        var note = "modelctl: transfer ratio \(ratio) measured from \(logs): \(ByteFormat.grouped(s.total)) bytes sent "
            + "(files \(ByteFormat.grouped(s.files)), packs and patches \(ByteFormat.grouped(s.coded)), chunk lists \(ByteFormat.grouped(s.chunkLists))) "
            + "for downloads worth \(ByteFormat.grouped(meter.fullFileBytes)) as full files"
        if meter.unknown.requests > 0 { note += "; \(meter.unknown.requests) answers for files the catalog does not name not counted" }
        printError(note)
        return ratio
    }

    /// Every name under `/models/` the catalog's releases and variants (removed ones too: old
    /// logs name them) could have been answered by, and what each stands for.
    static func objects(of catalog: Catalog) -> [String: TransferRatioMeter.Object] {
        var objects: [String: TransferRatioMeter.Object] = [:]
        func add(file: String, size: Int64, chunks: ChunkListFile?, transfer: TransferFiles?) {
            objects[file] = .file
            if chunks != nil { objects[ChunkListFile.name(of: file)] = .chunkList }
            if let packed = transfer?.packed { objects[TransferFiles.packName(of: file)] = .coded(size: packed.size, fileSize: size) }
            for p in transfer?.patches ?? [] { objects[TransferFiles.patchName(of: file, from: p.from)] = .coded(size: p.size, fileSize: size) }
        }
        for r in catalog.releases {
            add(file: r.file, size: r.size, chunks: r.chunks, transfer: r.transfer)
            for v in r.variants { add(file: v.file, size: v.size, chunks: v.chunks, transfer: v.transfer) }
        }
        return objects
    }
}

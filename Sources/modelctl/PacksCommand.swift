import ArgumentParser
import Foundation
import JSONSupport
import ModelCatalog

/// `modelctl packs …`: packed files and patches at publish (SPEC §16).
struct PacksCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "packs", abstract: "Manage the packed files and patches clients may fetch.",
        subcommands: [PacksDeriveCommand.self])
}

/// `modelctl packs derive [--models-dir DIR]`: what modeld's derivation worker does, once, in
/// the foreground — for a models directory no server watches (static hosting, §9.1: run it
/// after `publish --models-dir` and before `mirror`). Each file still to be derived gets its
/// pack and patches, recorded in groups like modeld's (`DerivationRun`: at most one catalog
/// change per second), so an interrupted run loses at most a second of work; running servers
/// pick each change up within 2 s.
struct PacksDeriveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "derive", abstract: "Derive the packs and patches of files published without them.",
        discussion: "A pack is kept when it is at least 5 % smaller than the file; a patch from each of the last "
            + "patch_bases releases of the channel (./config/modeld.json, default 3) when it is at least 10 % smaller "
            + "than the pack or the file. Prints one line per file.")

    @Option(help: "The models directory.") var modelsDir = "models"
    @Option(help: "Patches from this many earlier releases (default: patch_bases of ./config/modeld.json, else 3).")
    var patchBases: Int?
    @Flag(help: "Machine-readable JSON output.") var json = false

    func validate() throws {
        if let patchBases, !(0...16).contains(patchBases) { throw ValidationError("--patch-bases must be 0–16") }
    }

    func run() throws {
        try failing {
            let bases = try patchBases ?? ShippedConfig.load()?.patchBases ?? 3
            let signing = try SigningConfig.signer(keyFiles: [])
            let store = SigningConfig.store(modelsDir, signing: signing)
            var derived: [Derivation] = []
            do throws(CatalogError) {
                var run = DerivationRun(store: store, instance: "modelctl-\(getpid())", patchBases: bases)
                run.plan(try store.load())
                var failure: CatalogError?   // the first file that failed; the others are still derived
                steps: while true {
                    switch try run.step(onRecorded: { derived += $0 }, onFailed: { _, error in failure = failure ?? error }) {
                    case .next: continue
                    case .wait(let milliseconds): usleep(UInt32(milliseconds) * 1000)
                    case .done: break steps
                    }
                }
                if let failure { throw failure }
            } catch { throw CLIFailure(error) }
            if !derived.isEmpty { SigningConfig.refresh(store, with: signing, after: "packs derived") }
            if json {
                var w = JSONWriter()
                w.beginObject()
                w.key("files")
                w.beginArray()
                for d in derived {
                    w.beginObject()
                    w.field("id", d.job.releaseID)
                    w.field("file", d.job.file)
                    w.key("packed")
                    if let p = d.made.packed { w.beginObject(); w.field("size", p.size); w.field("width", p.width); w.endObject() } else { w.null() }
                    w.key("patches")
                    w.beginArray()
                    for p in d.made.patches { w.beginObject(); w.field("from", p.from); w.field("size", p.size); w.endObject() }
                    w.endArray()
                    w.endObject()
                }
                w.endArray()
                w.endObject()
                print(w.string)
            } else {
                for d in derived {
                    print("\(d.job.file)\tpack \(d.made.packed.map { "\($0.size) bytes" } ?? "not kept")\t\(d.made.patches.count) patch(es)")
                }
                print("\(derived.count) file(s) derived")
            }
        }
    }
}

import ArgumentParser
import JSONSupport
import ModelCatalog

/// `modelctl chunks …`: the chunk lists of delta updates (SPEC §14).
struct ChunksCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chunks", abstract: "Manage the chunk lists delta updates use.",
        subcommands: [ChunksBackfillCommand.self])
}

/// `modelctl chunks backfill [--models-dir DIR]`: writes `<file>.chunks` for every file the
/// catalog lists without one (published before SPEC v4), checked against the catalog's size
/// and SHA-256, and records them in one catalog change (so the §4.1 documents and their
/// signatures name them); a recorded list that is missing or damaged on disk is written again
/// (the remedy `verify` names). Offline, like `verify`: it reads the files themselves; running
/// servers pick the change up within 2 s. A second run finds nothing to do.
struct ChunksBackfillCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backfill", abstract: "Write chunk lists for files published without one.",
        discussion: "Prints one line per file written. A file whose bytes do not match the catalog stops the run "
            + "(exit 1) before the catalog changes; lists written for files before it are recorded by the next run.")

    @Option(help: "The models directory.") var modelsDir = "models"
    @Flag(help: "Machine-readable JSON output.") var json = false

    func run() throws {
        try failing {
            let signing = try SigningConfig.signer(keyFiles: [])
            let store = SigningConfig.store(modelsDir, signing: signing)
            let result: Versioned<[CatalogStore.BackfilledFile]>
            do throws(CatalogError) { result = try store.backfillChunkLists() } catch { throw CLIFailure(error) }
            if result.value.contains(where: { !$0.restored }) { SigningConfig.refresh(store, with: signing, after: "chunk lists backfilled") }
            if json {
                var w = JSONWriter()
                w.beginObject()
                w.key("files")
                w.beginArray()
                for f in result.value {
                    w.beginObject()
                    w.field("id", f.releaseID)
                    w.field("file", f.file)
                    w.field("chunks", f.chunkCount)
                    w.field("sha256", f.chunks.sha256)
                    w.field("size", f.chunks.size)
                    w.key("restored"); w.bool(f.restored)
                    w.endObject()
                }
                w.endArray()
                w.field("catalog_version", result.catalogVersion)
                w.endObject()
                print(w.string)
            } else {
                for f in result.value {
                    print("\(ChunkListFile.name(of: f.file))\t\(f.chunkCount) chunks\t\(f.chunks.size) bytes" + (f.restored ? "\trestored" : ""))
                }
                print("\(result.value.count) chunk list(s) written; catalog_version \(result.catalogVersion)")
            }
        }
    }
}

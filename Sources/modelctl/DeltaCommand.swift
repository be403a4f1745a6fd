import ArgumentParser
import ChunkList
import Foundation
import JSONSupport
import ModelCatalog

/// `modelctl delta OLD NEW [--json]` (SPEC §14): what a client holding OLD would fetch to build
/// NEW by chunks. Each side is a file (chunked here), a `.chunks` list, or a release id of the
/// catalog in `--models-dir` (its published list, else its file chunked).
struct DeltaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delta", abstract: "Show what a delta update from OLD to NEW would fetch.",
        discussion: "OLD and NEW are model files, .chunks lists or release ids. Requests are single-range GETs of "
            + "adjacent missing chunks joined up to 8 MiB, as the client sends them.")

    @Argument(help: "The installed file, its .chunks list, or its release id.") var old: String
    @Argument(help: "The new file, its .chunks list, or its release id.") var new: String
    @Option(help: "The models directory release ids are looked up in.") var modelsDir = "models"
    @Flag(help: "Machine-readable JSON output.") var json = false

    func run() throws {
        try failing {
            let oldList = try chunkList(old), newList = try chunkList(new)
            let plan = DeltaPlan(target: newList, sources: [oldList])
            if json {
                var w = JSONWriter()
                w.beginObject()
                w.field("chunks_old", oldList.chunks.count)
                w.field("chunks_new", newList.chunks.count)
                w.field("bytes_reused", plan.bytesReused)
                w.field("bytes_to_fetch", plan.bytesToFetch)
                w.field("requests", plan.fetches.count)
                w.endObject()
                print(w.string)
            } else {
                print("chunks: \(oldList.chunks.count) old, \(newList.chunks.count) new")
                print("reused: \(plan.bytesReused) bytes (\(plan.bytesReused.byteCountText))")
                print("fetch:  \(plan.bytesToFetch) bytes (\(plan.bytesToFetch.byteCountText)) in \(plan.fetches.count) request(s)")
            }
        }
    }

    private func chunkList(_ argument: String) throws(CLIFailure) -> ChunkList {
        if FileManager.default.fileExists(atPath: argument) {
            if argument.hasSuffix(ChunkList.fileSuffix) { return try decode(path: argument) }
            do throws(CatalogError) { return try ChunkListFile.build(path: argument).list } catch { throw CLIFailure(error) }
        }
        guard (try? Release.validateID(argument)) != nil else {
            throw CLIFailure("\(argument) is neither a file nor a release id", exitCode: 2)
        }
        let store = CatalogStore(directory: modelsDir, publicBaseURL: "")
        let catalog: Catalog
        do throws(CatalogError) { catalog = try store.load() } catch { throw CLIFailure(error) }
        guard let release = catalog.release(id: argument), release.fileDeletedAt == nil else {
            throw CLIFailure("no release \(argument) with a file in \(modelsDir)")
        }
        if release.chunks != nil { return try decode(path: store.path(of: release) + ChunkList.fileSuffix) }
        do throws(CatalogError) { return try ChunkListFile.build(path: store.path(of: release)).list } catch { throw CLIFailure(error) }
    }

    private func decode(path: String) throws(CLIFailure) -> ChunkList {
        let bytes: [UInt8]?
        do throws(CatalogError) { bytes = try FileIO.read(path) } catch { throw CLIFailure(error) }
        guard let bytes else { throw CLIFailure("\(path) does not exist") }
        do throws(ChunkListError) { return try ChunkList(decoding: bytes) } catch {
            throw CLIFailure("\(path): \(error)")
        }
    }
}

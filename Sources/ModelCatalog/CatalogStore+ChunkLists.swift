
extension CatalogStore {
    /// A file that got a chunk list from `backfillChunkLists`.
    public struct BackfilledFile: Sendable, Equatable {
        public let releaseID: String
        public let file: String
        public let chunks: ChunkListFile
        public let chunkCount: Int
        /// The catalog already recorded this list; its file was missing or damaged and is
        /// written again, byte for byte the recorded one (no catalog change).
        public let restored: Bool
    }

    /// `modelctl chunks backfill` (SPEC §14): writes `<file>.chunks` for every file on disk that
    /// the catalog lists without one (published before v4), then records them all in one
    /// catalog change. A recorded list whose file is missing or not the recorded bytes is
    /// written again from the file, which gives the same bytes (the chunker is deterministic);
    /// if it does not, the catalog's record is wrong and the run stops. Chunking reads whole
    /// files, so it runs outside the publish lock; each file is checked against its catalog
    /// size and SHA-256 in the same pass, and a file that does not match is an error (its list
    /// would describe other bytes). The change itself re-reads the catalog and skips entries
    /// that were collected or got a list meanwhile.
    public func backfillChunkLists() throws(CatalogError) -> Versioned<[BackfilledFile]> {
        var written: [BackfilledFile] = []
        for r in try load().releases {
            var files: [(name: String, sha256: String, size: Int64, chunks: ChunkListFile?)] = []
            if r.fileDeletedAt == nil { files.append((r.file, r.sha256, r.size, r.chunks)) }
            for v in r.variants where v.fileDeletedAt == nil { files.append((v.file, v.sha256, v.size, v.chunks)) }
            for f in files {
                let path = directory + "/" + f.name
                guard FileIO.exists(path) else { continue }   // not replicated here yet: nothing to describe
                // A recorded list already on disk as recorded is left alone without reading the file.
                if let recorded = f.chunks, let onDisk = try FileIO.read(directory + "/" + ChunkListFile.name(of: f.name)),
                   ChunkListFile(encoded: onDisk) == recorded { continue }
                let (list, sha256) = try ChunkListFile.build(path: path)
                guard list.fileSize == f.size, sha256 == f.sha256 else {
                    throw CatalogError(.sha256Mismatch, parameter: "sha256",
                        "\(path) has \(list.fileSize) bytes with SHA-256 \(sha256), but the catalog says \(f.size) bytes with \(f.sha256); "
                        + "run `modelctl verify`")
                }
                let bytes = list.encoded()
                let chunks = ChunkListFile(encoded: bytes)
                if let recorded = f.chunks, recorded != chunks {
                    throw CatalogError(.sha256Mismatch, parameter: "chunks",
                        "the catalog records the chunk list of \(path) as \(recorded.size) bytes with SHA-256 \(recorded.sha256), "
                        + "but the file's bytes give \(chunks.size) bytes with \(chunks.sha256)")
                }
                try ChunkListFile.write(bytes, directory: directory, file: f.name)
                written.append(BackfilledFile(releaseID: r.id, file: f.name, chunks: chunks, chunkCount: list.chunks.count, restored: f.chunks != nil))
            }
        }
        return try mutateVersioned { (catalog) throws(CatalogError) -> [BackfilledFile] in
            for f in written where !f.restored {
                guard let i = catalog.releases.firstIndex(where: { $0.id == f.releaseID }) else { continue }
                catalog.recordChunks(f.chunks, index: i, file: f.file)
            }
            return written
        }
    }
}

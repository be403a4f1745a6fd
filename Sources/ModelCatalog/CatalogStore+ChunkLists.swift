
extension CatalogStore {
    /// A file that got a chunk list from `backfillChunkLists`.
    public struct BackfilledFile: Sendable, Equatable {
        public let releaseID: String
        public let file: String
        public let chunks: ChunkListFile
        public let chunkCount: Int
    }

    /// `modelctl chunks backfill` (SPEC §14): writes `<file>.chunks` for every file on disk that
    /// the catalog lists without one (published before v4), then records them all in one
    /// catalog change. Chunking reads whole files, so it runs outside the publish lock;
    /// each file is checked against its catalog size and SHA-256 in the same pass, and a file
    /// that does not match is an error (its list would describe other bytes). The change
    /// itself re-reads the catalog and skips entries that were collected or got a list meanwhile.
    public func backfillChunkLists() throws(CatalogError) -> Versioned<[BackfilledFile]> {
        var written: [BackfilledFile] = []
        for r in try load().releases {
            var files: [(name: String, sha256: String, size: Int64)] = []
            if r.fileDeletedAt == nil && r.chunks == nil { files.append((r.file, r.sha256, r.size)) }
            for v in r.variants where v.fileDeletedAt == nil && v.chunks == nil { files.append((v.file, v.sha256, v.size)) }
            for f in files {
                let path = directory + "/" + f.name
                guard FileIO.exists(path) else { continue }   // not replicated here yet: nothing to describe
                let (list, sha256) = try ChunkListFile.build(path: path)
                guard list.fileSize == f.size, sha256 == f.sha256 else {
                    throw CatalogError(.sha256Mismatch, parameter: "sha256",
                        "\(path) has \(list.fileSize) bytes with SHA-256 \(sha256), but the catalog says \(f.size) bytes with \(f.sha256); "
                        + "run `modelctl verify`")
                }
                let bytes = list.encoded()
                try ChunkListFile.write(bytes, directory: directory, file: f.name)
                written.append(BackfilledFile(releaseID: r.id, file: f.name, chunks: ChunkListFile(encoded: bytes), chunkCount: list.chunks.count))
            }
        }
        return try mutateVersioned { (catalog) throws(CatalogError) -> [BackfilledFile] in
            for f in written {
                guard let i = catalog.releases.firstIndex(where: { $0.id == f.releaseID }) else { continue }
                catalog.recordChunks(f.chunks, index: i, file: f.file)
            }
            return written
        }
    }
}

import Foundation
import ChunkList
import ModelCatalog

/// Re-hashes every file the catalog names (SPEC §7.1 `verify`), streaming in 1 MiB reads: model
/// files can be far larger than memory. In the same pass it chunks the file again, so a file
/// that matches has its chunk list (SPEC §14) checked too: present, the bytes the catalog
/// records, and exactly the list the file's bytes give. Then the snapshots of the current
/// catalog version (SPEC §12.1): each present one must be what the catalog derives. Read-only: it takes
/// no lock and writes nothing.
struct VerifyCatalog {
    static let chunkSize = 1 << 20
    let store: CatalogStore

    func run() throws(CLIFailure) -> VerifyReport {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: store.directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw CLIFailure("no models directory \(store.directory)")
        }
        var report = VerifyReport(directory: store.directory)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.chunkSize, alignment: 16)
        defer { buffer.deallocate() }
        let catalog = try self.catalog()
        let (files, deleted) = Self.files(of: catalog)
        report.skipped = deleted
        for file in files {
            report.checked += 1
            switch check(file, buffer) {
            case .bad(let problem):
                report.problems.append(problem)
            case .good(let list):
                report.bytes += file.size
                if let problem = checkChunkList(of: file, rebuilt: list) { report.problems.append(problem) } else { report.chunkLists += 1 }
            }
        }
        checkDerivedFiles(of: catalog, into: &report)
        if !report.problems.isEmpty {
            // Garbage collection may have deleted a file (and marked it) while we were reading,
            // and a change meanwhile makes other snapshots current.
            let now = try self.catalog()
            let present = Set(Self.files(of: now).present.map(\.file))
            report.problems.removeAll { problem in
                problem.release.map { !present.contains($0.file) } ?? (now.catalogVersion != catalog.catalogVersion)
            }
        }
        return report
    }

    /// The snapshots of the current version against the disk; a missing one is a writer's to
    /// write, not a problem. A catalog without a recorded base URL (none changed it since
    /// v4) has no one derivation — each writer used its own base — so it is not checked.
    private func checkDerivedFiles(of catalog: Catalog, into report: inout VerifyReport) {
        guard let base = catalog.publicBaseURL else { return }
        for (file, derived) in DerivedSnapshot.files(of: catalog, publicBaseURL: base) {
            switch DerivedSnapshot.compare(file: file, catalog: catalog.catalogVersion, derived: derived,
                                           onDisk: try? FileIO.read(store.directory + "/" + file)) {
            case .missing: break
            case .same: report.snapshots += 1
            case .mismatch(let mismatch): report.problems.append(.init(mismatch, directory: store.directory))
            }
        }
    }

    /// Every file the catalog says is on disk (releases' and variants'), and how many it marks deleted.
    static func files(of catalog: Catalog) -> (present: [VerifyReport.CheckedFile], deleted: Int) {
        var present: [VerifyReport.CheckedFile] = []
        var deleted = 0
        for r in catalog.releases {
            if r.fileDeletedAt == nil { present.append(.init(id: r.id, file: r.file, size: r.size, sha256: r.sha256, chunks: r.chunks)) } else { deleted += 1 }
            for v in r.variants {
                if v.fileDeletedAt == nil {
                    present.append(.init(id: r.id, file: v.file, size: v.size, sha256: v.sha256, chunks: v.chunks))
                } else {
                    deleted += 1
                }
            }
        }
        return (present, deleted)
    }

    private func catalog() throws(CLIFailure) -> Catalog {
        do throws(CatalogError) { return try store.load() } catch { throw CLIFailure("\(store.catalogPath): \(error.message)") }
    }

    /// A file that does not match the catalog, or the chunk list its bytes give when it does.
    private enum FileOutcome {
        case bad(VerifyReport.Problem)
        case good(ChunkList)
    }

    /// The file against its catalog size and SHA-256.
    private func check(_ release: VerifyReport.CheckedFile, _ buffer: UnsafeMutableRawBufferPointer) -> FileOutcome {
        let path = store.directory + "/" + release.file
        let source: PublishFileSource
        do throws(CLIFailure) {
            source = try PublishFileSource(path: path)
        } catch {
            let missing = access(path, F_OK) != 0 && errno == ENOENT
            return .bad(.init(file: release, missing ? .missing : .unreadable, detail: missing ? nil : error.message))
        }
        // A size mismatch is conclusive without reading gigabytes.
        guard source.size == release.size else { return .bad(.init(file: release, .sizeMismatch, actualSize: source.size)) }
        var read: Int64 = 0
        var chunker = ChunkListBuilder()
        do throws(CLIFailure) {
            while true {
                let n = try source.read(into: buffer)
                if n == 0 { break }
                chunker.append(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
                read += Int64(n)
            }
        } catch {
            return .bad(.init(file: release, .unreadable, detail: error.message))
        }
        guard read == release.size else { return .bad(.init(file: release, .sizeMismatch, actualSize: read)) }
        guard let sha = source.sha256Hex, sha == release.sha256 else {
            return .bad(.init(file: release, .sha256Mismatch, actualSHA256: source.sha256Hex))
        }
        return .good(chunker.finish())
    }

    /// `<file>.chunks` against the catalog's record and the list the file gave (`rebuilt`).
    private func checkChunkList(of release: VerifyReport.CheckedFile, rebuilt: ChunkList) -> VerifyReport.Problem? {
        let onDisk: [UInt8]?
        do throws(CatalogError) { onDisk = try FileIO.read(store.directory + "/" + ChunkListFile.name(of: release.file)) } catch {
            return .init(chunksOf: release, .unreadable, onDisk: nil, detail: error.message)
        }
        guard let finding = ChunkListFinding.check(onDisk: onDisk, recorded: release.chunks, rebuilt: rebuilt) else { return nil }
        var problem = VerifyReport.Problem(chunksOf: release, .chunkList(finding), onDisk: onDisk)
        if finding.backfillRepairs { problem.remedy = "modelctl chunks backfill --models-dir \(store.directory)" }
        return problem
    }
}

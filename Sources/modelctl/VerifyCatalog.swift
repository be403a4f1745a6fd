import Foundation
import ModelCatalog

/// Re-hashes every file the catalog names (SPEC §7.1 `verify`), streaming in 1 MiB reads: model
/// files can be far larger than memory. Read-only: it takes no lock and writes nothing.
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
        let (files, deleted) = Self.files(of: try catalog())
        report.skipped = deleted
        for file in files {
            report.checked += 1
            if let problem = check(file, buffer) { report.problems.append(problem) } else { report.bytes += file.size }
        }
        if !report.problems.isEmpty {
            // Garbage collection may have deleted a file (and marked it) while we were reading.
            let present = Set(Self.files(of: try catalog()).present.map(\.file))
            report.problems.removeAll { !present.contains($0.release.file) }
        }
        return report
    }

    /// Every file the catalog says is on disk (releases' and variants'), and how many it marks deleted.
    static func files(of catalog: Catalog) -> (present: [VerifyReport.CheckedFile], deleted: Int) {
        var present: [VerifyReport.CheckedFile] = []
        var deleted = 0
        for r in catalog.releases {
            if r.fileDeletedAt == nil { present.append(.init(id: r.id, file: r.file, size: r.size, sha256: r.sha256)) } else { deleted += 1 }
            for v in r.variants {
                if v.fileDeletedAt == nil { present.append(.init(id: r.id, file: v.file, size: v.size, sha256: v.sha256)) } else { deleted += 1 }
            }
        }
        return (present, deleted)
    }

    private func catalog() throws(CLIFailure) -> Catalog {
        do throws(CatalogError) { return try store.load() } catch { throw CLIFailure("\(store.catalogPath): \(error.message)") }
    }

    private func check(_ release: VerifyReport.CheckedFile, _ buffer: UnsafeMutableRawBufferPointer) -> VerifyReport.Problem? {
        let path = store.directory + "/" + release.file
        let source: PublishFileSource
        do throws(CLIFailure) {
            source = try PublishFileSource(path: path)
        } catch {
            let missing = access(path, F_OK) != 0 && errno == ENOENT
            return .init(release: release, kind: missing ? .missing : .unreadable, detail: missing ? nil : error.message)
        }
        // A size mismatch is conclusive without reading gigabytes.
        guard source.size == release.size else { return .init(release: release, kind: .sizeMismatch, actualSize: source.size) }
        var read: Int64 = 0
        do throws(CLIFailure) {
            while true {
                let n = try source.read(into: buffer)
                if n == 0 { break }
                read += Int64(n)
            }
        } catch {
            return .init(release: release, kind: .unreadable, detail: error.message)
        }
        guard read == release.size else { return .init(release: release, kind: .sizeMismatch, actualSize: read) }
        guard let sha = source.sha256Hex, sha == release.sha256 else {
            return .init(release: release, kind: .sha256Mismatch, actualSHA256: source.sha256Hex)
        }
        return nil
    }
}

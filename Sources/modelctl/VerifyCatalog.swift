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
        for release in try catalog().releases {
            guard release.fileDeletedAt == nil else { report.skipped += 1; continue }
            report.checked += 1
            if let problem = check(release, buffer) { report.problems.append(problem) } else { report.bytes += release.size }
        }
        if !report.problems.isEmpty {
            // Garbage collection may have deleted a file (and marked it) while we were reading.
            let now = try catalog()
            report.problems.removeAll { now.release(id: $0.release.id)?.fileDeletedAt != nil }
        }
        return report
    }

    private func catalog() throws(CLIFailure) -> Catalog {
        do throws(CatalogError) { return try store.load() } catch { throw CLIFailure("\(store.catalogPath): \(error.message)") }
    }

    private func check(_ release: Release, _ buffer: UnsafeMutableRawBufferPointer) -> VerifyReport.Problem? {
        let path = store.path(of: release)
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

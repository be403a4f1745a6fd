import DurableFiles
import Foundation
import ZipArchive
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Unpacks a verified zipped model (`ext` ending in `zip`, e.g. `mlmodelc.zip`) into
/// `model/` of its staging directory (SPEC §13.1). The staging directory becomes
/// `models/<id>/` by one rename only after this returns, so a crash mid-unpack leaves the
/// previous model active and a staging leftover that the next start collects.
enum ModelUnpacker {
    static let directoryName = "model"

    static func needsUnpacking(_ release: ReleaseDocument) -> Bool { release.fileExtension.hasSuffix("zip") }

    /// - Parameter afterFirstFile: test hook, called once the first file is written.
    static func unpack(_ archive: URL, into staging: URL, afterFirstFile: () -> Void = {}) throws {
        let target = staging.appendingPathComponent(directoryName)
        let reader: ZipReader<FileZipSource>
        do { reader = try ZipReader(try FileZipSource(archive)) } catch {
            throw ModeldClientError.verification("model archive refused: \(error)")
        }
        var directories: Set<String> = [target.path]
        try makeDirectory(target)
        var wroteFile = false
        for entry in reader.entries {
            let parts = entry.name.split(separator: "/").map(String.init)
            var parent = target
            for part in parts.dropLast(entry.isDirectory ? 0 : 1) {
                parent = parent.appendingPathComponent(part)
                if directories.insert(parent.path).inserted { try makeDirectory(parent) }
            }
            guard !entry.isDirectory else { continue }
            try write(entry, of: reader, to: parent.appendingPathComponent(parts.last!))
            if !wroteFile {
                wroteFile = true
                afterFirstFile()
            }
        }
        // Children before parents, so each directory's entries are durable before its own.
        for directory in directories.sorted(by: { $0.count > $1.count }) { try DiskIO.fsyncDirectory(URL(fileURLWithPath: directory)) }
    }

    private static func write(_ entry: ZipEntry, of reader: ZipReader<FileZipSource>, to url: URL) throws {
        let fd: Int32
        do { fd = try DurableFile.open(url.path, O_WRONLY | O_CREAT | O_EXCL) } catch { throw ModeldClientError.io(error.description) }
        defer { DiskIO.closeFile(fd) }
        do {
            try reader.extract(entry) { try DiskIO.writeAll(fd, $0, path: url.path) }
        } catch let error as ZipError {
            throw ModeldClientError.verification("model archive refused: \(error)")
        }
        try DiskIO.syncFile(fd, path: url.path)  // part of the install: F_FULLFSYNC on Darwin
    }

    private static func makeDirectory(_ url: URL) throws {
        guard mkdir(url.path, 0o755) == 0 else { throw ModeldClientError.io("cannot create \(url.path): \(DiskIO.errorText())") }
    }
}

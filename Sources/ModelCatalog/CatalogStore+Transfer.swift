#if canImport(Glibc)
import Glibc
#endif
import BinaryText
import ContentDigest
import DurableFiles
import TensorPackFiles

extension CatalogStore {
    /// Derives one file's pack and patches (SPEC §16) and records them. Encoding runs outside
    /// the publish lock (minutes for a large file); each output is coded into `.tmp/<instance>-…`
    /// (a crash leaves only a temp, which this instance's start-up removes), fsynced, and kept
    /// only if worth it; kept ones are renamed to their final names, the directory fsynced, and
    /// then recorded under the lock. A crash between rename and record leaves files no catalog
    /// names: the next run derives them again, byte for byte, and renames over them.
    /// Answers the record, or nil when the file stopped waiting meanwhile (its outputs deleted).
    @discardableResult
    public func derive(_ job: DerivationJob, instance: String) throws(CatalogError) -> TransferFiles? {
        let source = directory + "/" + job.file
        var transfer = TransferFiles()
        var kept: [String] = []
        let pack = try code(source, base: nil, instance: instance)
        if TransferFiles.keepsPack(coded: pack.summary.coded, fileSize: pack.summary.size) {
            transfer.packed = try TransferFiles.Packed(sha256: pack.sha256, size: pack.summary.coded, width: pack.summary.width)
            kept.append(try keep(pack.temp, as: TransferFiles.packName(of: job.file)))
        } else {
            unlink(pack.temp)
        }
        for base in job.bases {
            let patch = try code(source, base: directory + "/" + base.file, instance: instance)
            guard TransferFiles.keepsPatch(coded: patch.summary.coded, fileSize: patch.summary.size, packSize: transfer.packed?.size) else {
                unlink(patch.temp)
                continue
            }
            transfer.patches.append(try TransferFiles.Patch(from: base.releaseID, sha256: patch.sha256, size: patch.summary.coded))
            kept.append(try keep(patch.temp, as: TransferFiles.patchName(of: job.file, from: base.releaseID)))
        }
        if !kept.isEmpty { try FileIO.fsyncDirectory(directory) }
        let recorded = try mutate { (catalog) throws(CatalogError) in catalog.recordTransfer(transfer, for: job) }
        guard recorded else {
            for name in kept { unlink(directory + "/" + name) }
            return nil
        }
        return transfer
    }

    /// Codes `source` (a patch from `base` when given) into a fresh temp and hashes the result.
    private func code(_ source: String, base: String?, instance: String) throws(CatalogError) -> (temp: String, summary: PackFiles.Summary, sha256: String) {
        try UploadWriter.validateInstance(instance)
        try FileIO.makeDirectory(tempDirectory)
        let temp = "\(tempDirectory)/\(instance)-\(Hex.random(bytes: 8))"
        let summary: PackFiles.Summary
        do throws(PackFileError) { summary = try PackFiles.code(source, base: base, to: temp) } catch {
            throw CatalogError(.io, "cannot code \(source)\(base.map { " against \($0)" } ?? ""): \(error.description)")
        }
        do throws(IOFailure) { return (temp, summary, try SHA256Hex.of(path: temp)) } catch {
            unlink(temp)
            throw error.catalogError
        }
    }

    private func keep(_ temp: String, as name: String) throws(CatalogError) -> String {
        do throws(CatalogError) { try FileIO.rename(temp, directory + "/" + name) } catch {
            unlink(temp)
            throw error
        }
        return name
    }
}

#if canImport(Glibc)
import Glibc
#endif
import BinaryText
import ContentDigest
import DurableFiles
import TensorPackFiles

/// One file's pack and patches, coded and kept under their final names but not recorded yet.
public struct Derivation: Sendable {
    public let job: DerivationJob
    public let made: TransferFiles
    /// The output files renamed to their final names (relative to the models directory).
    let kept: [String]
}

extension CatalogStore {
    /// Codes one file's pack and patches (SPEC §16), without recording them. Encoding runs outside
    /// the publish lock (minutes for a large file); each output is coded into `.tmp/<instance>-…`
    /// (a crash leaves only a temp, which this instance's start-up removes), fsynced, and kept
    /// only if worth it; kept ones are renamed to their final names and the directory fsynced.
    /// A crash before `record` leaves files no catalog names: the next run derives them again,
    /// byte for byte, and renames over them.
    public func code(_ job: DerivationJob, instance: String) throws(CatalogError) -> Derivation {
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
        // A base collected since the plan was made offers no patch (the catalog drops patches
        // from collected bases anyway); the file is still derived.
        for base in job.bases where access(directory + "/" + base.file, F_OK) == 0 {
            let patch = try code(source, base: directory + "/" + base.file, instance: instance)
            guard TransferFiles.keepsPatch(coded: patch.summary.coded, fileSize: patch.summary.size, packSize: transfer.packed?.size) else {
                unlink(patch.temp)
                continue
            }
            transfer.patches.append(try TransferFiles.Patch(from: base.releaseID, sha256: patch.sha256, size: patch.summary.coded))
            kept.append(try keep(patch.temp, as: TransferFiles.patchName(of: job.file, from: base.releaseID)))
        }
        if !kept.isEmpty { try FileIO.fsyncDirectory(directory) }
        return Derivation(job: job, made: transfer, kept: kept)
    }

    /// Records `derivations` in one catalog change (SPEC §16.1: records in groups). One whose
    /// file stopped waiting meanwhile (collected, removed, derived by another writer) is not
    /// recorded, and its outputs are deleted unless the catalog names them (another writer's
    /// identical outputs bear the same names). Answers the recorded ones, the catalog version
    /// that holds them, and what is still to be derived in it.
    public func record(_ derivations: [Derivation], patchBases: Int) throws(CatalogError)
        -> (recorded: [Derivation], catalogVersion: Int64, jobs: [DerivationJob]) {
        var unrecorded: [String] = []
        let change = try mutateVersioned { (catalog) throws(CatalogError) -> (recorded: [Derivation], jobs: [DerivationJob]) in
            var recorded: [Derivation] = []
            unrecorded = []
            for d in derivations {
                if catalog.recordTransfer(d.made, for: d.job) {
                    recorded.append(d)
                } else {
                    let named = Set(catalog.transfer(of: d.job)?.names(of: d.job.file) ?? [])
                    unrecorded += d.kept.filter { !named.contains($0) }
                }
            }
            return (recorded, catalog.derivationJobs(patchBases: patchBases))
        }
        for name in unrecorded { unlink(directory + "/" + name) }
        return (change.value.recorded, change.catalogVersion, change.value.jobs)
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

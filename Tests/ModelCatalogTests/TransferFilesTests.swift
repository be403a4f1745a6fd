import Testing
@testable import ModelCatalog

/// Packed files and patches in the catalog (SPEC §16): which files wait for a derivation and
/// against which bases, the thresholds, and the fields the answers and catalog.json carry.
@Suite struct TransferFilesTests {
    static let packed = try! TransferFiles.Packed(sha256: sha, size: 80, width: 4)

    @Test func jobs_newestFirst_basesAreTheLastPatchBasesOfChannelAndExt_SPEC16() throws {
        var other = rel(4, channel: "beta")
        other.transfer = TransferFiles()
        let catalog = try Catalog(releases: [rel(1), rel(2), rel(3), other, rel(5), rel(6, state: .retired)])
        let jobs = catalog.derivationJobs(patchBases: 2)
        #expect(jobs.map(\.releaseID) == [rel(5), rel(3), rel(2), rel(1)].map(\.id))   // retired and derived ones wait for nothing
        #expect(jobs[0].bases.map(\.releaseID) == [rel(3).id, rel(2).id])             // newest first, beta's not among them
        #expect(jobs[0].bases.map(\.file) == [rel(3).file, rel(2).file])
        #expect(jobs.last?.bases == [])
        #expect(catalog.derivationJobs(patchBases: 0).allSatisfy { $0.bases.isEmpty })
    }

    @Test func record_onlyWhileTheFileWaits_andCollectedBasesDropTheirPatches_SPEC16() throws {
        var catalog = try Catalog(releases: [rel(1), rel(2)])
        let job = try #require(catalog.derivationJobs(patchBases: 3).first)
        let made = TransferFiles(packed: Self.packed, patches: [try TransferFiles.Patch(from: rel(1).id, sha256: sha, size: 50)])
        let first = catalog.recordTransfer(made, for: job), second = catalog.recordTransfer(TransferFiles(), for: job)
        #expect(first && !second)   // derived already: the first record wins
        #expect(catalog.release(id: rel(2).id)?.transfer == made)
        // No operator decides on them: a console form from before the record is still current (SPEC §15.1).
        #expect(catalog.release(id: rel(2).id)?.revision == rel(2).revision)
        let none = catalog.dropPatchesFromCollectedBases()
        #expect(none.isEmpty)
        catalog.markFilesDeleted(index: 0, files: [rel(1).file], at: t0)
        let dropped = catalog.dropPatchesFromCollectedBases()
        #expect(dropped == ["\(rel(2).file).from-\(rel(1).id).patch"])
        #expect(catalog.release(id: rel(2).id)?.transfer == TransferFiles(packed: Self.packed))
    }

    @Test func thresholds_pack5PercentOfFile_patch10PercentOfPackOrFile_SPEC16() {
        #expect(TransferFiles.keepsPack(coded: 95, fileSize: 100) && !TransferFiles.keepsPack(coded: 96, fileSize: 100))
        #expect(TransferFiles.keepsPatch(coded: 90, fileSize: 100, packSize: nil) && !TransferFiles.keepsPatch(coded: 91, fileSize: 100, packSize: nil))
        #expect(TransferFiles.keepsPatch(coded: 72, fileSize: 100, packSize: 80) && !TransferFiles.keepsPatch(coded: 73, fileSize: 100, packSize: 80))
    }

    @Test func answersAndCatalogJSON_carryPackedAndPatches_andRoundTrip_SPEC16() throws {
        var r = rel(2)
        let base = "https://cdn.example"
        #expect(!String(decoding: r.documentJSON(publicBaseURL: base), as: UTF8.self).contains("packed"))
        #expect(!String(decoding: r.documentJSON(publicBaseURL: base), as: UTF8.self).contains("patches"))
        r.transfer = TransferFiles()   // derived, nothing kept: `patches: []` says it is settled (SPEC §16.1)
        let settled = String(decoding: r.documentJSON(publicBaseURL: base), as: UTF8.self)
        #expect(settled.contains(#""patches":[]"#) && !settled.contains("packed"))
        #expect(String(decoding: r.adminJSON(publicBaseURL: base), as: UTF8.self).contains(#""patches":[]"#))
        #expect(String(decoding: try Catalog(releases: [r]).latestDetailsJSON(publicBaseURL: base), as: UTF8.self).contains(#""patches":[]"#))
        r.transfer = TransferFiles(packed: Self.packed, patches: [try TransferFiles.Patch(from: rel(1).id, sha256: sha, size: 50)])
        let document = String(decoding: r.documentJSON(publicBaseURL: base), as: UTF8.self)
        #expect(document.contains(#""packed":{"url":"https://cdn.example/models/\#(r.file).pack","sha256":"\#(sha)","size":80,"width":4}"#))
        #expect(document.contains(#""patches":[{"from":"\#(rel(1).id)","url":"https://cdn.example/models/\#(r.file).from-\#(rel(1).id).patch","sha256":"\#(sha)","size":50}]"#))
        let catalog = try Catalog(releases: [rel(1), r])
        #expect(String(decoding: catalog.rulesJSON(channel: "stable", catalogVersion: 1, publicBaseURL: base), as: UTF8.self).contains(#""width":4"#))
        #expect(try Catalog(decoding: catalog.encoded()) == catalog)
        var pending = rel(1)
        pending.transfer = TransferFiles()
        #expect(try Catalog(decoding: Catalog(releases: [pending]).encoded()).releases[0].transfer == TransferFiles())
    }
}

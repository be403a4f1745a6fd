#if canImport(Glibc)
import Glibc
#endif
import ChunkList
import Foundation
import Testing
@testable import ModelCatalog

/// SPEC §14 in the catalog: publish writes `<file>.chunks` (also for variants) and records it,
/// the §4.1 document names it, GC deletes it with its file, backfill fills in older files.
@Suite struct ChunkListCatalogTests {
    static let bytes: [UInt8] = (0..<300_000).map { UInt8(truncatingIfNeeded: ($0 &* 2_654_435_761) >> 13) }

    func stage(_ dir: TempDir, _ bytes: [UInt8] = bytes) throws -> FinishedUpload {
        let writer = try UploadWriter(modelsDirectory: dir.path, instance: "t")
        try writer.write(bytes)
        return try writer.finish()
    }

    @Test func publish_writesTheListNextToTheFile_andTheDocumentNamesIt_SPEC14() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let store = CatalogStore(directory: dir.path, publicBaseURL: "https://cdn.example.com")
        let release = try store.publish(try stage(dir), PublishRequest(sdkMin: "1.0", ext: "gguf")).value
        let chunks = try #require(release.chunks)
        let onDisk = try #require(try FileIO.read(dir.path + "/" + release.file + ".chunks"))
        #expect(ChunkListFile(encoded: onDisk) == chunks)
        var builder = ChunkListBuilder()
        builder.append(Self.bytes)
        #expect(try ChunkList(decoding: onDisk) == builder.finish())

        let document = String(decoding: release.documentJSON(publicBaseURL: "https://cdn.example.com"), as: UTF8.self)
        #expect(document.contains(#""size":300000,"chunks":{"url":"https://cdn.example.com/models/\#(release.file).chunks","sha256":"\#(chunks.sha256)","size":\#(chunks.size)},"sdk_min""#))
        // The catalog keeps it (without url), and reloads it.
        #expect(try store.load().release(id: release.id)?.chunks == chunks)
        #expect(dir.read("catalog.json")?.contains(#""chunks":{"sha256":"\#(chunks.sha256)","size":\#(chunks.size)}"#) == true)
        #expect(dir.read("latest_model_details.json")?.contains("\(release.file).chunks") == true)
    }

    @Test func variant_hasItsOwnList_andGCDeletesEachListWithItsFile_SPEC14() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let store = CatalogStore(directory: dir.path, publicBaseURL: "http://h")
        let release = try store.publish(try stage(dir), PublishRequest(sdkMin: "1.0", ext: "bin"), now: t0).value
        let other = Array(Self.bytes.reversed())
        let withVariant = try store.addVariant(try stage(dir, other), to: release.id,
            VariantRequest(name: "small", requires: #"{"platform":["ios"]}"#, ext: "bin"), now: t0).value
        let variant = try #require(withVariant.variants.first)
        #expect(variant.chunks != nil && variant.chunks != release.chunks)
        #expect(dir.exists(variant.file + ".chunks"))
        let answer = String(decoding: withVariant.documentJSON(publicBaseURL: "http://h", variant: variant), as: UTF8.self)
        #expect(answer.contains("/models/\(variant.file).chunks") && !answer.contains("\(release.file).chunks"))

        _ = try store.retire(id: release.id, now: t0)
        try store.collectGarbage(graceDays: 1, now: t0.adding(days: 2))
        #expect(!dir.exists(release.file) && !dir.exists(release.file + ".chunks"))
        #expect(!dir.exists(variant.file) && !dir.exists(variant.file + ".chunks"))
    }

    @Test func backfill_writesListsForOlderFiles_once_andRefusesAFileThatDoesNotMatch_SPEC14() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let store = CatalogStore(directory: dir.path, publicBaseURL: "http://h")
        let release = try store.publish(try stage(dir), PublishRequest(sdkMin: "1.0", ext: "bin")).value
        // A catalog from before v4: no list recorded, none on disk.
        let old = try #require(dir.read("catalog.json")).replacingOccurrences(
            of: #","chunks":{"sha256":"\#(release.chunks!.sha256)","size":\#(release.chunks!.size)}"#, with: "")
        dir.write("catalog.json", old)
        unlink(dir.path + "/" + release.file + ".chunks")
        #expect(try store.load().release(id: release.id)?.chunks == nil)

        let filled = try store.backfillChunkLists()
        #expect(filled.value.map(\.file) == [release.file])
        #expect(try store.load().release(id: release.id)?.chunks == release.chunks)
        #expect(dir.exists(release.file + ".chunks"))
        let again = try store.backfillChunkLists()
        #expect(again.value.isEmpty && again.catalogVersion == filled.catalogVersion)

        // A damaged file gets no list: its list would describe other bytes.
        let second = try store.publish(try stage(dir, Array(Self.bytes.prefix(50_000))), PublishRequest(sdkMin: "1.0", ext: "bin")).value
        dir.write("catalog.json", try #require(dir.read("catalog.json")).replacingOccurrences(
            of: #","chunks":{"sha256":"\#(second.chunks!.sha256)","size":\#(second.chunks!.size)}"#, with: ""))
        dir.write(second.file, "tampered")
        #expect(throws: CatalogError.self) { try store.backfillChunkLists() }
        #expect(try store.load().release(id: second.id)?.chunks == nil)
    }

    @Test func backfill_restoresARecordedListThatIsMissingOrDamaged_withoutACatalogChange_SPEC14() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let store = CatalogStore(directory: dir.path, publicBaseURL: "http://h")
        let published = try store.publish(try stage(dir), PublishRequest(sdkMin: "1.0", ext: "bin"))
        let list = published.value.file + ".chunks"
        let original = try #require(try FileIO.read(dir.path + "/" + list))
        let damages: [() -> Void] = [{ _ = unlink(dir.path + "/" + list) }, { dir.write(list, "MDCHUNK1") }]
        for damage in damages {
            damage()
            let restored = try store.backfillChunkLists()
            #expect(restored.value.map(\.restored) == [true])
            #expect(restored.catalogVersion == published.catalogVersion, "no catalog change")
            #expect(try FileIO.read(dir.path + "/" + list) == original)
        }
        #expect(try store.backfillChunkLists().value.isEmpty, "an intact recorded list is left alone")

        // A record that is not the file's own list is not papered over.
        let other = Array(Self.bytes.reversed())
        let second = try store.publish(try stage(dir, other), PublishRequest(sdkMin: "1.0", ext: "bin")).value
        dir.write("catalog.json", try #require(dir.read("catalog.json")).replacingOccurrences(
            of: second.chunks!.sha256, with: published.value.chunks!.sha256))
        unlink(dir.path + "/" + second.file + ".chunks")
        let refused = #expect(throws: CatalogError.self) { try store.backfillChunkLists() }
        #expect(refused?.parameter == "chunks" && refused?.message.contains(second.file) == true)
    }

    /// Each way a list can be wrong, judged by the pure rule `verify` and backfill share.
    @Test func finding_tellsEveryWayAListCanBeWrong_SPEC14() throws {
        var builder = ChunkListBuilder()
        builder.append(Self.bytes)
        let rebuilt = builder.finish()
        let bytes = rebuilt.encoded()
        let recorded = ChunkListFile(encoded: bytes)
        #expect(ChunkListFinding.check(onDisk: bytes, recorded: recorded, rebuilt: rebuilt) == nil)
        #expect(ChunkListFinding.check(onDisk: bytes, recorded: nil, rebuilt: rebuilt) == .unrecorded)
        #expect(ChunkListFinding.check(onDisk: nil, recorded: recorded, rebuilt: rebuilt) == .missing)
        #expect(ChunkListFinding.check(onDisk: Array(bytes.dropLast(3)), recorded: recorded, rebuilt: rebuilt) == .invalid(.truncated))
        var flipped = bytes
        flipped[ChunkList.headerSize + 4] ^= 0xFF   // the first chunk's hash: still a well-formed list
        #expect(ChunkListFinding.check(onDisk: flipped, recorded: recorded, rebuilt: rebuilt) == .notRecorded)

        // Recorded as it is on disk, but not what the file's bytes give.
        let flippedRecord = ChunkListFile(encoded: flipped)
        guard case .describesOtherBytes(let detail)? = ChunkListFinding.check(onDisk: flipped, recorded: flippedRecord, rebuilt: rebuilt) else {
            Issue.record("expected describesOtherBytes")
            return
        }
        #expect(detail.hasPrefix("chunk 0 at offset 0: the list says \(rebuilt.chunks[0].length) bytes"), "\(detail)")
        var shorter = ChunkListBuilder()
        shorter.append(Array(Self.bytes.prefix(100_000)))
        let other = shorter.finish().encoded()
        guard case .describesOtherBytes(let sizes)? = ChunkListFinding.check(onDisk: other, recorded: ChunkListFile(encoded: other), rebuilt: rebuilt) else {
            Issue.record("expected describesOtherBytes")
            return
        }
        #expect(sizes == "the list describes 100000 bytes, the file has 300000")
        #expect(!ChunkListFinding.describesOtherBytes("").backfillRepairs && ChunkListFinding.missing.backfillRepairs)
    }
}

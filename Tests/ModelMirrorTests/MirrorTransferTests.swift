import ModelCatalog
import Testing
@testable import ModelMirror

/// Packs and patches (SPEC §16) go to the bucket right after their file and before any JSON,
/// and leave it with their file (§9.1's order and deletion schedule).
struct MirrorTransferTests {
    static let t0 = Timestamp(rfc3339: "2026-11-21T10:00:00.000Z")!
    static let id = "00000000-0000-4000-8000-000000000001"
    static let other = "00000000-0000-4000-8000-000000000009"

    static func release(deleted: Bool) throws -> Release {
        let transfer = TransferFiles(packed: try TransferFiles.Packed(sha256: String(repeating: "a", count: 64), size: 80, width: 4),
                                     patches: [try TransferFiles.Patch(from: other, sha256: String(repeating: "b", count: 64), size: 50)])
        return try Release(id: id, seq: 1, ext: "onnx", sha256: String(repeating: "1", count: 64), size: 100, transfer: transfer,
                           sdkMin: "1.0", publishedAt: t0, fileDeletedAt: deleted ? t0 : nil)
    }

    @Test func desired_packAndPatchRightAfterTheirFile_beforeTheJSON_andCollectedWithIt_SPEC16() throws {
        let json = [LocalJSON(name: "latest_model_details.json", localPath: "/m/latest_model_details.json", size: 50, sha256: "l")]
        let objects = MirrorObject.desired(catalog: try Catalog(releases: [try Self.release(deleted: false)]), modelsDir: "/m", prefix: "",
                                           json: json, pointerMaxAge: 60)
        #expect(objects.map(\.key) == ["models/\(Self.id).onnx", "models/\(Self.id).onnx.pack",
                                       "models/\(Self.id).onnx.from-\(Self.other).patch", "models/latest_model_details.json"])
        #expect(objects[1].size == 80 && objects[1].sha256 == String(repeating: "a", count: 64) && objects[1].contentType == "application/octet-stream")
        #expect(DeletionSchedule.collectedKeys(catalog: try Catalog(releases: [try Self.release(deleted: true)]), prefix: "")
            == ["models/\(Self.id).onnx", "models/\(Self.id).onnx.pack", "models/\(Self.id).onnx.from-\(Self.other).patch"])
    }
}

import ModelCatalog
import Testing
@testable import ModelMirror

struct MirrorPlanTests {
    static let t0 = Timestamp(rfc3339: "2026-11-21T10:00:00.000Z")!
    static func release(_ seq: Int64, size: Int64, deleted: Bool = false) -> Release {
        try! Release(id: "00000000-0000-4000-8000-00000000000\(seq)", seq: seq, ext: "onnx", sha256: String(repeating: "\(seq)", count: 64),
                     size: size, sdkMin: "1.0", publishedAt: t0, fileDeletedAt: deleted ? t0 : nil)
    }
    static let catalog = try! Catalog(releases: [release(2, size: 200 << 20), release(1, size: 10), release(3, size: 5, deleted: true)])
    static let json = [
        LocalJSON(name: "latest_model_details.sig.json", localPath: "/m/latest_model_details.sig.json", size: 300, sha256: "s"),
        LocalJSON(name: "details/10.json", localPath: "/m/details/10.json", size: 40, sha256: "d10"),
        LocalJSON(name: "latest_model_details.json", localPath: "/m/latest_model_details.json", size: 50, sha256: "l"),
        LocalJSON(name: "details/9.json", localPath: "/m/details/9.json", size: 30, sha256: "d9"),
    ]

    @Test func desired_filesThenSnapshotsThenPointerLast_SPEC9_1() {
        let objects = MirrorObject.desired(catalog: Self.catalog, modelsDir: "/m", prefix: "cdn/v1", json: Self.json, pointerMaxAge: 60)
        #expect(objects.map(\.key) == [
            "cdn/v1/models/00000000-0000-4000-8000-000000000001.onnx", "cdn/v1/models/00000000-0000-4000-8000-000000000002.onnx",
            "cdn/v1/models/details/9.json", "cdn/v1/models/details/10.json",
            "cdn/v1/models/latest_model_details.json", "cdn/v1/models/latest_model_details.sig.json",
        ])
        #expect(objects[0].cacheControl == "public, max-age=31536000, immutable" && objects[0].contentType == "application/octet-stream")
        #expect(objects[0].localPath == "/m/00000000-0000-4000-8000-000000000001.onnx")
        #expect(objects[2].cacheControl == MirrorObject.immutableCacheControl && objects[2].isImmutable)
        #expect(objects[4].cacheControl == "public, max-age=60" && objects[4].contentType == "application/json" && !objects[4].isImmutable)
    }

    /// The rules index (SPEC §17.2) goes after every channel's pointer, which go after every
    /// snapshot, and before latest_model_details*.
    @Test func desired_rulesIndexAfterTheChannelPointers_SPEC17_2() {
        let names = ["rules/zeta.sig.json", "rules/index.sig.json", "rules/alpha.sig.json", "rules/alpha/3.json", "latest_model_details.json"]
        let json = names.map { LocalJSON(name: $0, localPath: "/m/" + $0, size: 1, sha256: $0) }
        let keys = MirrorObject.desired(catalog: Self.catalog, modelsDir: "/m", prefix: "", json: json, pointerMaxAge: 60).map(\.key).suffix(5)
        #expect(Array(keys) == ["models/rules/alpha/3.json", "models/rules/alpha.sig.json", "models/rules/zeta.sig.json",
                                "models/rules/index.sig.json", "models/latest_model_details.json"])
    }

    /// Before snapshots and signatures exist (other branches add them), only files and the JSON go.
    @Test func desired_withoutSnapshotsOrSignature() {
        let objects = MirrorObject.desired(catalog: Self.catalog, modelsDir: "/m", prefix: "", json: [Self.json[2]], pointerMaxAge: 5)
        #expect(objects.map(\.key).last == "models/latest_model_details.json")
        #expect(objects.count == 3)
    }

    @Test func plan_skipsSameSizeAndSHA_uploadsTheRest_neverOverwritesImmutable() {
        let objects = MirrorObject.desired(catalog: Self.catalog, modelsDir: "/m", prefix: "", json: Self.json, pointerMaxAge: 60)
        let remote: [String: RemoteObject?] = [
            objects[0].key: RemoteObject(size: 10, sha256: objects[0].sha256),      // same: skip
            objects[2].key: RemoteObject(size: 30, sha256: nil),                    // immutable, differs: conflict
            objects[4].key: RemoteObject(size: 50, sha256: "old"),                  // pointer, differs: upload
            objects[5].key: RemoteObject(size: 300, sha256: "s"),                   // pointer, same: skip
        ]
        let plan = MirrorPlan(objects: objects, remote: remote, multipartThreshold: 100 << 20)
        #expect(plan.steps.map(\.action) == [.skip, .multipart, .conflict, .upload, .upload, .skip])
        #expect(plan.bytesToUpload == (200 << 20) + 40 + 50)
        #expect(plan.conflicts.map(\.object.key) == ["models/details/9.json"])
        #expect(plan.lines[1] == "multipart\tmodel\t\(200 << 20)\tmodels/00000000-0000-4000-8000-000000000002.onnx")
    }

    /// Files go together, then snapshots together; a multipart file and each pointer alone.
    @Test func batches_concurrentOnlyWithinOneKindOfImmutableObject_SPEC9_1() {
        func object(_ kind: MirrorObject.Kind, _ key: String, size: Int64 = 10) -> MirrorObject {
            MirrorObject(kind: kind, key: key, localPath: "/m/" + key, size: size, sha256: key, contentType: "a", cacheControl: "c")
        }
        let objects = [object(.modelFile, "f1"), object(.modelFile, "f2"), object(.modelFile, "big", size: 200 << 20), object(.modelFile, "f3"),
                       object(.modelFile, "same"), object(.modelFile, "f4"), object(.snapshot, "d1"), object(.snapshot, "d2"),
                       object(.pointer, "latest"), object(.pointer, "sig")]
        let plan = MirrorPlan(objects: objects, remote: ["same": RemoteObject(size: 10, sha256: "same")], multipartThreshold: 100 << 20)
        #expect(plan.batches.map { $0.map(\.object.key) } == [["f1", "f2"], ["big"], ["f3", "f4"], ["d1", "d2"], ["latest"], ["sig"]])
    }

    @Test func plan_multipartAlwaysAbove5GiB() {
        let big = MirrorObject(kind: .modelFile, key: "k", localPath: "/f", size: (5 << 30) + 1, sha256: "x", contentType: "a", cacheControl: "c")
        #expect(MirrorPlan(objects: [big], remote: [:], multipartThreshold: 1 << 40).steps[0].action == .multipart)
    }
}

/// Device-class variant files (SPEC §3.1) are mirrored like the release's own file (SPEC §9.1).
struct MirrorVariantTests {
    static let t0 = MirrorPlanTests.t0
    static func variant(_ n: Int, ext: String, removed: Bool = false, deleted: Bool = false) -> Variant {
        try! Variant(name: "v\(n)", fileID: "00000000-0000-4000-8000-0000000001\(n)0", ext: ext, sha256: String(repeating: "a\(n)", count: 32),
                     size: Int64(100 + n), requires: VariantRequirements(minRAMMB: 7000), addedAt: t0,
                     removedAt: removed || deleted ? t0 : nil, fileDeletedAt: deleted ? t0 : nil)
    }
    /// Release 1 (custom Content-Type) has a live variant, one removed but in grace, one collected;
    /// release 2 has one live variant.
    static let catalog = try! Catalog(releases: [
        try! Release(id: "00000000-0000-4000-8000-000000000002", seq: 2, ext: "onnx", sha256: String(repeating: "2", count: 64), size: 20,
                     sdkMin: "1.0", publishedAt: t0, variants: [variant(4, ext: "onnx")]),
        try! Release(id: "00000000-0000-4000-8000-000000000001", seq: 1, ext: "gguf", sha256: String(repeating: "1", count: 64), size: 10,
                     sdkMin: "1.0", publishedAt: t0, contentType: "application/x-gguf",
                     variants: [variant(1, ext: "gguf"), variant(2, ext: "gguf", removed: true), variant(3, ext: "gguf", deleted: true)]),
    ])

    @Test func desired_variantFilesFollowTheirRelease_beforeAnyJSON_SPEC9_1() {
        let objects = MirrorObject.desired(catalog: Self.catalog, modelsDir: "/m", prefix: "p", json: MirrorPlanTests.json, pointerMaxAge: 60)
        #expect(objects.map(\.key) == [
            "p/models/00000000-0000-4000-8000-000000000001.gguf", "p/models/00000000-0000-4000-8000-000000000110.gguf",
            "p/models/00000000-0000-4000-8000-000000000120.gguf",   // removed, still in grace: kept
            "p/models/00000000-0000-4000-8000-000000000002.onnx", "p/models/00000000-0000-4000-8000-000000000140.onnx",
            "p/models/details/9.json", "p/models/details/10.json",
            "p/models/latest_model_details.json", "p/models/latest_model_details.sig.json",
        ])
        let live = objects[1]
        #expect(live.kind == .modelFile && live.isImmutable && live.cacheControl == MirrorObject.immutableCacheControl)
        #expect(live.sha256 == Self.variant(1, ext: "gguf").sha256 && live.size == 101)
        #expect(live.localPath == "/m/00000000-0000-4000-8000-000000000110.gguf")
        // What modeld's /models/ serves the variant with: its extension's default, not the release's override.
        #expect(objects[0].contentType == "application/x-gguf" && live.contentType == Self.variant(1, ext: "gguf").contentType)
        let plan = MirrorPlan(objects: objects, remote: [live.key: RemoteObject(size: 101, sha256: live.sha256)], multipartThreshold: 100 << 20)
        #expect(plan.steps.map(\.action) == [.upload, .skip, .upload, .upload, .upload, .upload, .upload, .upload, .upload])
        #expect(plan.lines[2] == "upload\tmodel\t102\tp/models/00000000-0000-4000-8000-000000000120.gguf")
    }

    @Test func collectedVariantFile_isScheduledForDeletion_SPEC9_1() {
        #expect(DeletionSchedule.collectedKeys(catalog: Self.catalog, prefix: "") == ["models/00000000-0000-4000-8000-000000000130.gguf"])
    }
}

struct DeletionScheduleTests {
    @Test func dueOnlyAfterMaxAge_SPEC9_1() {
        var schedule = DeletionSchedule()
        schedule.pending = ["a": 100, "b": 150]
        #expect(schedule.due(now: 160, maxAge: 60).isEmpty)
        #expect(schedule.due(now: 161, maxAge: 60) == ["a"])
        #expect(schedule.due(now: 300, maxAge: 60) == ["a", "b"])
        #expect(schedule.secondsUntilNextDue(now: 120, maxAge: 60) == 41)
        #expect(DeletionSchedule().secondsUntilNextDue(now: 0, maxAge: 60) == nil)
    }

    @Test func collectedKeys_areTheGarbageCollectedFiles() {
        #expect(DeletionSchedule.collectedKeys(catalog: MirrorPlanTests.catalog, prefix: "p")
                == ["p/models/00000000-0000-4000-8000-000000000003.onnx"])
    }
}

import ChildProcesses
import Foundation
import ModelCatalog
import ObjectStorageCurl
import Testing

/// `modelctl mirror` with device-class variants (SPEC §3.1, §9.1): their files go to the bucket
/// like the release's own, and a collected one leaves it on the same delayed schedule.
extension MirrorCLITests {
    @Test func variantFiles_areMirrored_andACollectedOneIsDeletedAfterMaxAge_SPEC9_1() throws {
        let cluster = try RGWCluster.require()
        let client = try cluster.client()
        let models = try Self.emptyModelsDirectory().models
        defer { Self.remove(models) }
        let offline = ["--models-dir", models, "--public-base-url", "http://cdn.example"]
        let release = try RGWClientTests.scratchFile(size: 4_321, seed: 5, ext: "tflite")
        let big = try RGWClientTests.scratchFile(size: 7_001, seed: 6, ext: "tflite")
        let old = try RGWClientTests.scratchFile(size: 3_001, seed: 7, ext: "tflite")
        defer { for path in [release.path, big.path, old.path] { unlink(path) } }
        let published = try ChildProcess.run(Self.modelctl, ["publish", release.path, "--sdk-min", "1.0", "--json"] + offline, timeout: .seconds(60))
        try #require(published.status == 0, "\(published.stderr)")
        let id = try #require(published.stdout.firstRange(of: #""id":""#).map { String(published.stdout[$0.upperBound...].prefix(36)) })
        for (file, name, requires) in [(big.path, "8gb", "min_ram_mb=7000"), (old.path, "old", "platform=android")] {
            let added = try ChildProcess.run(Self.modelctl, ["variant", "add", id, file, "--name", name, "--requires", requires] + offline, timeout: .seconds(60))
            try #require(added.status == 0, "variant add \(name): \(added.stderr)")
        }
        // Removed but in grace: clients mid-download may still need it, so it is mirrored too.
        let removed = try ChildProcess.run(Self.modelctl, ["variant", "remove", id, "old"] + offline, timeout: .seconds(60))
        try #require(removed.status == 0, "\(removed.stderr)")
        let store = CatalogStore(directory: models, publicBaseURL: "http://cdn.example")
        let variants = try #require(try store.load().releases.first).variants
        try #require(variants.map(\.name) == ["8gb", "old"])
        let prefix = "var-\(UUID().uuidString)"
        let releaseKey = "\(prefix)/models/\(id).tflite", bigKey = "\(prefix)/models/\(variants[0].file)", oldKey = "\(prefix)/models/\(variants[1].file)"

        let maxAge = ["--max-age", "3"]
        let plan = try Self.mirror(cluster, models: models, prefix: prefix, maxAge + ["--dry-run"])
        #expect(plan.status == 0, "\(plan.stderr)")
        // Typed parts: as one literal expression this took the type checker 52 s.
        let planned: [String] = plan.stdout.split(separator: "\n").map { $0.split(separator: "\t").last.map(String.init) ?? "" }
        let files: [String] = [releaseKey, releaseKey + ".chunks", bigKey, bigKey + ".chunks", oldKey, oldKey + ".chunks"]
        let snapshots: [String] = (1...4).map { "\(prefix)/models/rules/stable/\($0).json" }
        let pointers: [String] = ["\(prefix)/models/rules/stable.sig.json", "\(prefix)/models/rules/index.sig.json",
                                  "\(prefix)/models/latest_model_details.json"]
        #expect(planned == files + snapshots + pointers,
                "files first (each with its chunk list), the release's before its variants; each change's rules snapshot, then the pointers")
        let first = try Self.mirror(cluster, models: models, prefix: prefix, maxAge + ["--json"])
        #expect(first.stdout.hasPrefix(#"{"uploaded":13,"skipped":0,"deleted":0,"#), "\(first.stderr)")
        for (key, file) in [(bigKey, big), (oldKey, old)] {
            let head = try #require(try client.head(key))
            #expect(head.size == Int64(file.bytes.count) && head.sha256 == file.sha256)
            #expect(head.cacheControl == "public, max-age=31536000, immutable")
            #expect(head.contentType == Release.defaultContentType(forExt: "tflite"), "what modeld's /models/ serves it with")
            #expect(try client.get(key) == file.bytes)
        }

        // Collect the removed variant's file (grace 0, a day later): deleted once the max-age has passed.
        try store.collectGarbage(graceDays: 0, now: Timestamp.now().adding(days: 1))
        let next = try Self.mirror(cluster, models: models, prefix: prefix, maxAge + ["--json"])
        #expect(next.status == 0 && next.stdout.contains(#""deleted":0"#), "\(next.stdout)\(next.stderr)")
        #expect(try client.head(oldKey) != nil, "not deleted before the JSON's max-age has passed")
        #expect(try Self.mirrorUntilDeleted(2, cluster, models: models, prefix: prefix, maxAge))   // the file and its chunk list
        #expect(try client.head(oldKey) == nil)
        #expect(try client.head(bigKey)?.sha256 == big.sha256 && client.head(releaseKey) != nil, "live files stay")
    }
}

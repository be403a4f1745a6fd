import ChildProcesses
import ContentDigest
import Foundation
import ModelCatalog
import ObjectStorage
import ObjectStorageCurl
import Testing

/// `modelctl mirror` (SPEC §9.1): the real binary against the real RGW.
@Suite(.enabled(if: RGWCluster.shouldRun, RGWCluster.skipMessage), .serialized)
struct MirrorCLITests {
    static let modelctl = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        .appendingPathComponent("modelctl").path

    /// An empty `models` directory inside a new scratch directory (removed by `remove(models)`).
    static func emptyModelsDirectory() throws -> (scratch: String, models: String) {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("mirror-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: scratch + "/models", withIntermediateDirectories: true)
        return (scratch, scratch + "/models")
    }

    /// An operator's working directory `scratch`: a generated signing key in config/keys and
    /// ./config/modeld.json naming it, plus `settings` (more JSON members), so every offline
    /// change writes the signed snapshot and pointer (SPEC §12).
    static func writeSigningConfig(in scratch: String, settings: String) throws {
        try FileManager.default.createDirectory(atPath: scratch + "/config", withIntermediateDirectories: true)
        let keys = try ChildProcess.run(modelctl, ["keys", "generate", "--name", "k", "--out", "config/keys"], directory: scratch, timeout: .seconds(30))
        try #require(keys.status == 0, "\(keys.stderr)")
        try #"{"signing":{"keys":["config/keys/k.key"]},\#(settings)}"#
            .write(toFile: scratch + "/config/modeld.json", atomically: true, encoding: .utf8)
    }

    /// An operator's working directory (`emptyModelsDirectory`, `writeSigningConfig`) whose
    /// answers name `prefix` in the public bucket as their base URL: a static host's. Returns
    /// the directory and that base URL.
    static func publicBucketScratch(_ cluster: RGWCluster, prefix: String) throws -> (scratch: String, base: String) {
        let (scratch, _) = try emptyModelsDirectory()
        let base = "\(cluster.endpoint)/\(RGWCluster.publicBucket)/\(prefix)"
        try writeSigningConfig(in: scratch, settings: #""latest_max_age_seconds":1,"public_base_url":"\#(base)""#)
        return (scratch, base)
    }

    /// `modelctl mirror` of `scratch`/models to the public bucket under `prefix`, with the
    /// cluster's credentials; fails the test when it does not exit 0.
    static func mirrorToPublicBucket(_ cluster: RGWCluster, prefix: String, scratch: String) throws {
        let mirrored = try ChildProcess.run(modelctl, ["mirror", "--models-dir", "models", "--to", "s3://\(RGWCluster.publicBucket)/\(prefix)",
                                            "--endpoint", cluster.endpoint, "--json"],
                                 environment: ["AWS_ACCESS_KEY_ID": cluster.credentials.accessKeyID,
                                               "AWS_SECRET_ACCESS_KEY": cluster.credentials.secretAccessKey],
                                 directory: scratch, timeout: .seconds(120))
        try #require(mirrored.status == 0, "\(mirrored.stderr)")
    }

    /// A models directory with a 12 MiB and a small release, published offline.
    static func modelsDirectory() throws -> (path: String, files: [String]) {
        let models = try emptyModelsDirectory().models
        for (ext, size, seed) in [("onnx", (12 << 20) + 7, UInt8(3)), ("tflite", 4_321, UInt8(4))] {
            let file = try RGWClientTests.scratchFile(size: size, seed: seed, ext: ext)
            defer { unlink(file.path) }
            let result = try ChildProcess.run(modelctl, ["publish", file.path, "--sdk-min", "1.0", "--models-dir", models,
                                              "--public-base-url", "http://cdn.example", "--content-type", "application/octet-stream"], timeout: .seconds(60))
            #expect(result.status == 0, "publish .\(ext): \(result.stderr)")
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: models).filter { $0.hasSuffix(".onnx") || $0.hasSuffix(".tflite") }
        return (models, files.sorted())
    }

    /// Removes the scratch directory holding `models`.
    static func remove(_ models: String) {
        try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: models).deletingLastPathComponent().path)
    }

    static func mirror(_ cluster: RGWCluster, models: String, prefix: String, _ extra: [String] = [], secret: String? = nil) throws -> ProcessResult {
        try ChildProcess.run(modelctl, ["mirror", "--models-dir", models, "--to", "s3://\(RGWCluster.bucket)/\(prefix)", "--endpoint", cluster.endpoint,
                             "--max-age", "30", "--multipart-threshold", "10MiB", "--part-size", "5MiB"] + extra,
                  environment: ["AWS_ACCESS_KEY_ID": cluster.credentials.accessKeyID,
                                "AWS_SECRET_ACCESS_KEY": secret ?? cluster.credentials.secretAccessKey], timeout: .seconds(120))
    }

    @Test func freshMirror_thenSecondRunUploadsNothing_SPEC9_1() throws {
        let cluster = try RGWCluster.require()
        let client = try cluster.client()
        let (models, files) = try Self.modelsDirectory()
        defer { Self.remove(models) }
        let prefix = "m-\(UUID().uuidString)"
        // Signed metadata (SPEC §12): details/<N>.json and latest_model_details.sig.json.
        let keys = URL(fileURLWithPath: models).deletingLastPathComponent().path
        let generated = try ChildProcess.run(Self.modelctl, ["keys", "generate", "--name", "k1", "--out", keys], timeout: .seconds(30))
        try #require(generated.status == 0, "\(generated.stderr)")
        let signed = try ChildProcess.run(Self.modelctl, ["sign", "refresh", "--models-dir", models, "--key", keys + "/k1.key"], timeout: .seconds(30))
        try #require(signed.status == 0, "\(signed.stderr)")
        let snapshot = try #require(try FileManager.default.contentsOfDirectory(atPath: models + "/details").first)

        let plan = try Self.mirror(cluster, models: models, prefix: prefix, ["--dry-run"])
        #expect(plan.status == 0, "\(plan.stderr)")
        let lines = plan.stdout.split(separator: "\n").map(String.init)
        // Files first, each followed by its chunk list (SPEC §14; a "model" object too), then the
        // details and rules snapshots (each publish changed stable's rules: 1.json and 2.json),
        // then the rules pointer, the rules index, the details pointer and its signature, last
        // (SPEC §9.1, §9.2, §17.2).
        #expect(lines.map { $0.split(separator: "\t")[1] } == ["model", "model", "model", "model", "snapshot", "snapshot", "snapshot",
                                                               "pointer", "pointer", "pointer", "pointer"])
        #expect(lines[1].hasSuffix(".chunks") && lines[3].hasSuffix(".chunks"))
        #expect(lines[4].hasSuffix("\t\(prefix)/models/details/\(snapshot)"))
        #expect(lines[5].hasSuffix("\t\(prefix)/models/rules/stable/1.json") && lines[6].hasSuffix("\t\(prefix)/models/rules/stable/2.json"))
        #expect(lines[7].hasSuffix("\t\(prefix)/models/rules/stable.sig.json"))
        #expect(lines[8].hasSuffix("\t\(prefix)/models/rules/index.sig.json"))
        #expect(lines[9].hasSuffix("/models/latest_model_details.json") && lines[10].hasSuffix("/models/latest_model_details.sig.json"))
        #expect(lines.contains { $0.hasPrefix("multipart\tmodel\t\((12 << 20) + 7)\t\(prefix)/models/") })
        #expect(try client.list(prefix: prefix).isEmpty, "--dry-run changed nothing")

        let first = try Self.mirror(cluster, models: models, prefix: prefix, ["--json"])
        #expect(first.status == 0, "\(first.stderr)")
        let jsonSize = ["latest_model_details.json", "latest_model_details.sig.json", "details/" + snapshot,
                        "rules/stable/1.json", "rules/stable/2.json", "rules/stable.sig.json", "rules/index.sig.json"].map { Self.size(models + "/" + $0) }.reduce(0, +)
        let listSize = files.map { Self.size(models + "/" + $0 + ".chunks") }.reduce(0, +)
        #expect(first.stdout == #"{"uploaded":11,"skipped":0,"deleted":0,"bytes":\#((12 << 20) + 7 + 4_321 + jsonSize + listSize)}"# + "\n")
        let rulesPointer = try #require(try client.head("\(prefix)/models/rules/stable.sig.json"))
        #expect(rulesPointer.cacheControl == "public, max-age=30" && rulesPointer.contentType == "application/json")
        let snapshotHead = try #require(try client.head("\(prefix)/models/details/\(snapshot)"))
        #expect(snapshotHead.cacheControl == "public, max-age=31536000, immutable" && snapshotHead.contentType == "application/json")
        #expect(try client.get("\(prefix)/models/latest_model_details.sig.json")
                == Array(try Data(contentsOf: URL(fileURLWithPath: models + "/latest_model_details.sig.json"))))
        for file in files {
            let local = try Data(contentsOf: URL(fileURLWithPath: models + "/" + file))
            let head = try #require(try client.head("\(prefix)/models/\(file)"))
            #expect(head.size == Int64(local.count) && head.sha256 == SHA256Hex.of(Array(local)))
            #expect(head.cacheControl == "public, max-age=31536000, immutable")
            #expect(try client.get("\(prefix)/models/\(file)") == Array(local))
        }
        let pointer = try #require(try client.head("\(prefix)/models/latest_model_details.json"))
        #expect(pointer.cacheControl == "public, max-age=30" && pointer.contentType == "application/json")
        #expect(try client.get("\(prefix)/models/latest_model_details.json") == Array(try Data(contentsOf: URL(fileURLWithPath: models + "/latest_model_details.json"))))

        let second = try Self.mirror(cluster, models: models, prefix: prefix, ["--json"])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stdout == #"{"uploaded":0,"skipped":11,"deleted":0,"bytes":0}"# + "\n")
    }

    @Test func wrongSecret_exits1WithAClearMessage_andWritesNothing() throws {
        let cluster = try RGWCluster.require()
        let (models, _) = try Self.modelsDirectory()
        defer { Self.remove(models) }
        let prefix = "w-\(UUID().uuidString)"
        let result = try Self.mirror(cluster, models: models, prefix: prefix, secret: "not-the-secret")
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("modelctl: HeadObject HEAD "))
        #expect(result.stderr.contains("403"))
        #expect(!result.stderr.contains("not-the-secret"))
        #expect(try cluster.client().list(prefix: prefix).isEmpty)
    }

    @Test func credentialsFile_mustBePrivate_andIsUsed() throws {
        let cluster = try RGWCluster.require()
        let (models, _) = try Self.modelsDirectory()
        defer { Self.remove(models) }
        let path = models + "/../credentials"
        try "[r]\naws_access_key_id = \(cluster.credentials.accessKeyID)\naws_secret_access_key = \(cluster.credentials.secretAccessKey)\n"
            .write(toFile: path, atomically: true, encoding: .utf8)
        let arguments = ["mirror", "--models-dir", models, "--to", "s3://\(RGWCluster.bucket)/c", "--endpoint", cluster.endpoint,
                         "--credentials-file", path, "--profile", "r", "--dry-run"]
        chmod(path, 0o640)
        let open = try ChildProcess.run(Self.modelctl, arguments, timeout: .seconds(60))
        #expect(open.status == 2)
        #expect(open.stderr.contains("accessible by group or others") && open.stderr.contains("chmod 600"))
        chmod(path, 0o600)
        let ok = try ChildProcess.run(Self.modelctl, arguments, timeout: .seconds(60))
        #expect(ok.status == 0, "\(ok.stderr)")
        // Two files and their chunk lists, stable's two rules snapshots, its pointer, the rules
        // index, latest_model_details.json.
        #expect(ok.stdout.split(separator: "\n").count == 9)
    }

    static let killedUploadSize: off_t = 40 << 20

    /// SPEC §9.1: a mirror SIGKILLed mid-upload resumes its multipart upload (journal +
    /// ListParts) without sending the finished parts again.
    @Test func sigkillMidMultipart_resumesWithoutResendingParts() throws {
        let cluster = try RGWCluster.require()
        let client = try cluster.client()
        let (scratch, models) = try Self.emptyModelsDirectory()
        defer { Self.remove(models) }
        // 40 MiB, sparse (zeros) but for a marker at the end: 8 parts of 5 MiB, sent one at a
        // time, so the kill after the second leaves six to resume (200 MiB proved nothing more).
        let source = scratch + "/big.onnx"
        let fd = open(source, O_WRONLY | O_CREAT, 0o644)
        ftruncate(fd, Self.killedUploadSize)
        _ = pwrite(fd, "end", 3, Self.killedUploadSize - 3)
        close(fd)
        let published = try ChildProcess.run(Self.modelctl, ["publish", source, "--sdk-min", "1.0", "--models-dir", models, "--public-base-url", "http://cdn.example"], timeout: .seconds(120))
        try #require(published.status == 0, "\(published.stderr)")
        let prefix = "k-\(UUID().uuidString)"
        let environment = ["AWS_ACCESS_KEY_ID": cluster.credentials.accessKeyID, "AWS_SECRET_ACCESS_KEY": cluster.credentials.secretAccessKey]
        let arguments = ["mirror", "--models-dir", models, "--to", "s3://\(RGWCluster.bucket)/\(prefix)", "--endpoint", cluster.endpoint,
                         "--multipart-threshold", "10MiB", "--part-size", "5MiB", "--concurrency", "1", "--json"]
        let running = try ChildProcess.start(Self.modelctl, arguments, environment: environment)
        // Kill once at least two parts are in the bucket (polled, bounded).
        var partsBeforeKill = 0
        _ = try Self.poll(seconds: 60, every: 0.01) {
            if let upload = try client.listMultipartUploads(prefix: prefix).first {
                partsBeforeKill = try client.listParts(upload.key, uploadID: upload.uploadID).count
            }
            return partsBeforeKill >= 2
        }
        kill(running.pid, SIGKILL)
        let killed = try running.wait(timeout: .seconds(30))
        try #require(killed.status == -SIGKILL, "the mirror ended before it was killed: \(killed.stderr)")
        #expect(partsBeforeKill >= 2)
        #expect(try client.list(prefix: prefix).isEmpty, "nothing visible after the kill")

        let resumed = try ChildProcess.run(Self.modelctl, arguments, environment: environment, timeout: .seconds(300))
        #expect(resumed.status == 0, "\(resumed.stderr)")
        let resumedParts = resumed.stderr.split(separator: " ").firstIndex(of: "of").flatMap { index in
            Int(resumed.stderr.split(separator: " ")[index - 1])
        }
        #expect(resumed.stderr.contains("resuming \(prefix)/models/"))
        #expect((resumedParts ?? 0) >= partsBeforeKill, "\(resumed.stderr)")
        // The file and its chunk list, latest_model_details.json, stable's rules snapshot, its
        // pointer and the rules index.
        #expect(resumed.stdout.hasPrefix(#"{"uploaded":6,"skipped":0,"deleted":0,"#))
        let file = try #require(try FileManager.default.contentsOfDirectory(atPath: models).first { $0.hasSuffix(".onnx") })
        let head = try #require(try client.head("\(prefix)/models/\(file)"))
        #expect(head.size == Int64(Self.killedUploadSize))
        #expect(head.sha256 == (try SHA256Hex.of(path: models + "/" + file)))
        #expect(try client.listMultipartUploads(prefix: prefix).isEmpty)
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: models + "/.mirror/uploads")) ?? []).isEmpty, "journal cleared")
    }

    /// SPEC §9.1: `--watch` mirrors a new publish within seconds (file before JSON).
    @Test func watch_picksUpAPublishWithinSeconds() throws {
        let cluster = try RGWCluster.require()
        let client = try cluster.client()
        let (models, _) = try Self.modelsDirectory()
        defer { Self.remove(models) }
        let prefix = "watch-\(UUID().uuidString)"
        let running = try ChildProcess.start(Self.modelctl, [
            "mirror", "--watch", "--json", "--models-dir", models, "--to", "s3://\(RGWCluster.bucket)/\(prefix)", "--endpoint", cluster.endpoint,
            "--max-age", "30"], environment: ["AWS_ACCESS_KEY_ID": cluster.credentials.accessKeyID, "AWS_SECRET_ACCESS_KEY": cluster.credentials.secretAccessKey])
        var stopped = false
        defer {
            if !stopped {
                running.signal(SIGKILL)
                _ = try? running.wait(timeout: .seconds(30))  // SIGKILLed: it cannot outlive the wait
            }
        }
        let pointer = "\(prefix)/models/latest_model_details.json"
        func pointerMatchesLocal() throws -> Bool {
            let local = Array(try Data(contentsOf: URL(fileURLWithPath: models + "/latest_model_details.json")))
            return try client.head(pointer) != nil && client.get(pointer) == local
        }
        #expect(try Self.poll(seconds: 120) { try pointerMatchesLocal() }, "first pass mirrored the pointer")

        let file = try RGWClientTests.scratchFile(size: 10_000, seed: 9, ext: "tflite")
        defer { unlink(file.path) }
        let published = try ChildProcess.run(Self.modelctl, ["publish", file.path, "--sdk-min", "2.0", "--models-dir", models,
                                                  "--public-base-url", "http://cdn.example", "--json"], timeout: .seconds(60))
        try #require(published.status == 0, "\(published.stderr)")
        let id = try #require(published.stdout.firstRange(of: #""id":""#).map { published.stdout[$0.upperBound...].prefix(36) })
        let started = ContinuousClock.now
        #expect(try Self.poll(seconds: 30) { try pointerMatchesLocal() }, "the new JSON was mirrored")
        let latency = ContinuousClock.now - started
        let head = try client.head("\(prefix)/models/\(id).tflite")
        #expect(head?.sha256 == file.sha256, "the new file is there, and was uploaded before the JSON")
        #expect(latency < .seconds(15), "took \(latency)")
        // An operator stops the watcher with SIGTERM.
        kill(running.pid, SIGTERM)
        stopped = true
        #expect(try running.wait(timeout: .seconds(10)).status == -SIGTERM)
    }

    /// SPEC §9.1: a garbage-collected file leaves the bucket only after the JSON that stopped
    /// naming it has been in place for longer than its max-age.
    @Test func gcDeletion_waitsForTheJSONMaxAge() throws {
        let cluster = try RGWCluster.require()
        let client = try cluster.client()
        let (models, files) = try Self.modelsDirectory()
        defer { Self.remove(models) }
        let prefix = "gc-\(UUID().uuidString)"
        let maxAge = ["--max-age", "3"]
        #expect(try Self.mirror(cluster, models: models, prefix: prefix, maxAge + ["--json"]).status == 0)
        let small = try #require(files.first { $0.hasSuffix(".tflite") })
        let key = "\(prefix)/models/\(small)"
        #expect(try client.head(key) != nil)

        // Retire the small release and collect its file (grace 0, a day later).
        let store = CatalogStore(directory: models, publicBaseURL: "http://cdn.example")
        let id = String(small.prefix(36))
        _ = try store.retire(id: id)
        try store.collectGarbage(graceDays: 0, now: Timestamp.now().adding(days: 1))

        // The retire changed stable's rules (snapshot 3, its pointer and the rules index); the
        // big file and rules snapshots 1 and 2 are skipped.
        let first = try Self.mirror(cluster, models: models, prefix: prefix, maxAge + ["--json"])
        let changed = ["latest_model_details.json", "rules/stable/3.json", "rules/stable.sig.json", "rules/index.sig.json"].map { Self.size(models + "/" + $0) }.reduce(0, +)
        #expect(first.stdout == #"{"uploaded":4,"skipped":4,"deleted":0,"bytes":\#(changed)}"# + "\n", "\(first.stderr)")
        #expect(try client.head(key) != nil, "still there right after the JSON changed")
        let dryRun = try Self.mirror(cluster, models: models, prefix: prefix, maxAge + ["--dry-run"])
        #expect(!dryRun.stdout.contains("delete\t"), "not due yet")

        // Once the max-age has passed, a pass deletes it (polled with a deadline).
        #expect(try Self.mirrorUntilDeleted(2, cluster, models: models, prefix: prefix, maxAge))   // the file and its chunk list
        #expect(try client.head(key) == nil && client.head(key + ".chunks") == nil)
        let again = try Self.mirror(cluster, models: models, prefix: prefix, maxAge + ["--json"])
        #expect(again.stdout == #"{"uploaded":0,"skipped":8,"deleted":0,"bytes":0}"# + "\n")
    }

    /// Mirrors pass after pass until one reports a deletion (bounded: 30 s); whether one did.
    static func mirrorUntilDeleted(_ count: Int, _ cluster: RGWCluster, models: String, prefix: String, _ extra: [String]) throws -> Bool {
        try poll(seconds: 30, every: 0.5) {
            let pass = try mirror(cluster, models: models, prefix: prefix, extra + ["--json"])
            #expect(pass.status == 0, "\(pass.stderr)")
            return pass.stdout.contains(#""deleted":\#(count)"#)
        }
    }

    /// Evaluates `condition` until it holds or `seconds` pass; whether it held.
    static func poll(seconds: Int, every interval: Double = 0.1, _ condition: () throws -> Bool) throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            if try condition() { return true }
            usleep(UInt32(interval * 1_000_000))
        }
        return false
    }

    static func size(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? -1
    }

    @Test func usageErrors_exit2() throws {
        let cluster = try RGWCluster.require()
        let noCredentials = try ChildProcess.run(Self.modelctl, ["mirror", "--to", "s3://b-1", "--endpoint", cluster.endpoint], timeout: .seconds(30))
        #expect(noCredentials.status == 2 && noCredentials.stderr.contains("no credentials"))
        let badTo = try ChildProcess.run(Self.modelctl, ["mirror", "--to", "b-1", "--endpoint", cluster.endpoint], timeout: .seconds(30))
        #expect(badTo.status == 2 && badTo.stderr.contains("s3://BUCKET"))
        let badPart = try ChildProcess.run(Self.modelctl, ["mirror", "--to", "s3://b-1", "--endpoint", cluster.endpoint, "--part-size", "1MiB"], timeout: .seconds(30))
        #expect(badPart.status == 2)
        let badConcurrency = try ChildProcess.run(Self.modelctl, ["mirror", "--to", "s3://b-1", "--endpoint", cluster.endpoint, "--concurrency", "0"], timeout: .seconds(30))
        #expect(badConcurrency.status == 2 && badConcurrency.stderr.contains("--concurrency must be 1-64"))
    }
}

import ChildProcesses
import Foundation
import Synchronization
import Testing

/// `modelctl publish --models-dir` and `modelctl verify` (SPEC §2, §7.1, §9): the real binary on
/// temp directories, no server. Serialized: the kill test writes 300 MB and the race test runs 40
/// publishes; on two shared cores they should not also race each other.
@Suite(.serialized) final class ModelctlOfflineTests {
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("modelctl-offline-\(UUID().uuidString)")
    var models: URL { scratch.appendingPathComponent("models") }

    init() throws { try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true) }
    deinit { try? FileManager.default.removeItem(at: scratch) }

    // MARK: - Helpers

    /// Runs in the scratch directory, so no `config/modeld.json` is found unless a test writes one.
    private func modelctl(_ arguments: [String], timeout: Duration = .seconds(60)) throws -> ProcessResult {
        try ChildProcess.run(TestBinaries.modelctl, arguments, directory: scratch, timeout: timeout)
    }

    /// `publish FILE --sdk-min 2.3 --models-dir models --json …`, which must succeed.
    private func publish(_ file: URL, _ extra: [String] = []) throws -> [String: Any] {
        let result = try modelctl(["publish", file.path, "--sdk-min", "2.3", "--models-dir", models.path, "--json"] + extra)
        #expect(result.status == 0, "\(result.stderr)")
        return try json(result.stdout)
    }

    private func json(_ text: String) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "\(text)")
    }

    private func jsonFile(_ url: URL) throws -> [String: Any] {
        try json(String(contentsOf: url, encoding: .utf8))
    }

    private func catalog() throws -> [String: Any] { try jsonFile(models.appendingPathComponent("catalog.json")) }
    private func releases() throws -> [[String: Any]] { try #require(catalog()["releases"] as? [[String: Any]]) }

    /// `size` random bytes in the scratch directory.
    private func modelFile(_ name: String = "weights.mlmodelc.zip", size: Int = 3 << 20 + 17) throws -> URL {
        let random = try #require(FileHandle(forReadingAtPath: "/dev/urandom"))
        let file = scratch.appendingPathComponent(name)
        try (random.read(upToCount: size) ?? Data()).write(to: file)
        return file
    }

    /// The independent oracle: coreutils' sha256sum.
    private func sha256sum(_ file: URL) throws -> String {
        String(try ChildProcess.run(URL(fileURLWithPath: "/usr/bin/sha256sum"), [file.path]).stdout.prefix(64))
    }

    private func entries(_ directory: URL) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
    }

    // MARK: - publish --models-dir

    @Test func publish_writesFileCatalogAndLatestDetails_SPEC7_1() throws {
        let file = try modelFile()
        let release = try publish(file, ["--sdk-max", "3.0", "--label", "offline ✓"])
        let id = try #require(release["id"] as? String)
        let sha = try sha256sum(file)

        #expect(release["sha256"] as? String == sha)
        #expect(release["size"] as? Int == 3 << 20 + 17)
        #expect(release["url"] as? String == "http://127.0.0.1:8080/models/\(id).mlmodelc.zip", "the documented default base URL")
        #expect(release["content_type"] as? String == "application/zip")

        let entries = try releases()
        #expect(entries.count == 1)
        let entry = try #require(entries.first)
        #expect(entry["id"] as? String == id && entry["seq"] as? Int == 1)
        #expect(entry["sha256"] as? String == sha && entry["size"] as? Int == 3 << 20 + 17)
        #expect(entry["file"] as? String == "\(id).mlmodelc.zip" && entry["label"] as? String == "offline ✓")
        #expect(try sha256sum(models.appendingPathComponent("\(id).mlmodelc.zip")) == sha, "the file is in place")
        #expect(self.entries(models.appendingPathComponent(".tmp")).isEmpty, "the upload temp was renamed, not copied")

        let latest = try jsonFile(models.appendingPathComponent("latest_model_details.json"))
        #expect((latest["2.3.0"] as? [String: Any])?["id"] as? String == id)
        #expect((latest["2.3.0"] as? [String: Any])?["url"] as? String == release["url"] as? String)
        #expect(latest["3.0.0"] is NSNull, "nothing is eligible from sdk_max on")
    }

    @Test func publish_textOutput_baseURLFromConfigOrFlag_SPEC7_1() throws {
        let config = scratch.appendingPathComponent("config")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        try Data(#"{"listen":"0.0.0.0:9000","public_base_url":"https://cdn.example/"}"#.utf8)
            .write(to: config.appendingPathComponent("modeld.json"))
        let file = try modelFile("m.onnx", size: 100)
        let sha = try sha256sum(file)

        let text = try modelctl(["publish", file.path, "--sdk-min", "1", "--models-dir", models.path])
        #expect(text.status == 0, "\(text.stderr)")
        let lines = text.stdout.split(separator: "\n")
        let id = try #require(lines.first { $0.hasPrefix("id:") }?.split(separator: " ").last)
        #expect(lines.contains { $0.hasPrefix("url:") && $0.hasSuffix(" https://cdn.example/models/\(id).onnx") })
        #expect(lines.contains { $0.hasPrefix("sha256:") && $0.hasSuffix(sha) })
        #expect(try String(contentsOf: models.appendingPathComponent("latest_model_details.json"), encoding: .utf8)
            .contains("https://cdn.example/models/\(id).onnx"))

        // The flag beats the config; but the catalog keeps the base it recorded (one base per catalog).
        let fresh = scratch.appendingPathComponent("fresh-models")
        let flagged = try modelctl(["publish", file.path, "--sdk-min", "1", "--models-dir", fresh.path, "--json", "--public-base-url", "https://other.example"])
        #expect((try json(flagged.stdout)["url"] as? String)?.hasPrefix("https://other.example/models/") == true, "\(flagged.stderr)")
        let refused = try modelctl(["publish", file.path, "--sdk-min", "1", "--models-dir", models.path, "--public-base-url", "https://other.example"])
        #expect(refused.status == 1 && refused.stderr.contains("https://cdn.example") && refused.stderr.contains("https://other.example"), "\(refused.stderr)")

        // A config that cannot be read is an error, not a silent default (the URL is published).
        try Data("{".utf8).write(to: config.appendingPathComponent("modeld.json"))
        let broken = try modelctl(["publish", file.path, "--sdk-min", "1", "--models-dir", models.path])
        #expect(broken.status == 1)
        #expect(broken.stderr.hasPrefix("modelctl: cannot use config/modeld.json: configuration error: config file config/modeld.json"), "\(broken.stderr)")
        #expect(try releases().count == 1)
    }

    @Test func publish_keepsGivenID_andRefusesItsReuse_SPEC7_1() throws {
        let id = "0b7e2d9c-3f4a-4e5b-8c6d-7e8f9a0b1c2d"
        let first = try modelFile("a.gguf", size: 1000)
        #expect(try publish(first, ["--id", id])["id"] as? String == id)

        let again = try modelctl(["publish", try modelFile("b.gguf", size: 2000).path, "--sdk-min", "1", "--models-dir", models.path, "--id", id])
        #expect(again.status == 1)
        #expect(again.stderr.hasPrefix("modelctl: 409 id_in_use: ") && again.stderr.contains(id), "\(again.stderr)")
        #expect(try releases().count == 1)
        #expect(try sha256sum(models.appendingPathComponent("\(id).gguf")) == sha256sum(first), "the first file is untouched")
        #expect(entries(models.appendingPathComponent(".tmp")).isEmpty, "the refused upload's temp is gone")
    }

    @Test(arguments: [
        ["--rollout", "101"], ["--sdk-max", "2.3"], ["--channel", "Beta"], ["--id", "not-a-uuid"],
        ["--instance", "a/b"], ["--instance", ".hidden"], ["--public-base-url", "ftp://cdn.example"],
    ])
    func publish_badFlags_exit2_beforeWritingAnything_SPEC7(extra: [String]) throws {
        let file = try modelFile("m.gguf", size: 10)
        let result = try modelctl(["publish", file.path, "--sdk-min", "2.3", "--models-dir", models.path] + extra)
        #expect(result.status == 2, "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: models.path))
    }

    @Test(arguments: [["--instance", "x"], ["--public-base-url", "https://cdn.example"]])
    func publish_offlineFlagsWithoutModelsDir_exit2(extra: [String]) throws {
        let result = try modelctl(["publish", try modelFile("m.gguf", size: 10).path, "--sdk-min", "1", "--token", "t"] + extra)
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.contains("needs --models-dir"))
    }

    @Test func publish_missingFile_exits1NamingIt_andWritesNothing() throws {
        let result = try modelctl(["publish", "/nonexistent/model.onnx", "--sdk-min", "1", "--models-dir", models.path])
        #expect(result.status == 1)
        #expect(result.stderr == "modelctl: cannot read /nonexistent/model.onnx: No such file or directory\n")
        #expect(!FileManager.default.fileExists(atPath: models.path))
    }

    /// SPEC §9: each publisher re-reads the catalog under the lock, so concurrent publishers
    /// from separate processes lose nothing.
    @Test func publish_twoProcessesAtOnce_loseNoRelease_SPEC9() throws {
        let files = try (0..<2).map { try modelFile("w\($0).bin", size: 4096 + $0) }
        let ids = Mutex<[String]>([])
        let failures = Mutex<[String]>([])
        let (modelsPath, directory) = (models.path, scratch)
        DispatchQueue.concurrentPerform(iterations: 2) { worker in
            for i in 0..<20 {
                do {
                    let r = try ChildProcess.run(TestBinaries.modelctl, [
                        "publish", files[worker].path, "--sdk-min", "1.\(i)", "--label", "w\(worker)-\(i)",
                        "--models-dir", modelsPath, "--json",
                    ], directory: directory)
                    let id = (try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])?["id"] as? String
                    if r.status == 0, let id { ids.withLock { $0.append(id) } } else { failures.withLock { $0.append("\(r.status) \(r.stderr)") } }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
        let entries = try releases()
        let published = Set(ids.withLock { $0 })
        #expect(entries.count == 40 && published.count == 40)
        #expect(Set(entries.compactMap { $0["id"] as? String }) == published)
        #expect(Set(entries.compactMap { $0["seq"] as? Int }) == Set(1...40))
        #expect(try catalog()["next_seq"] as? Int == 41)
        #expect(try modelctl(["verify", "--models-dir", models.path]).status == 0)
    }

    /// SPEC §2: a crash at any instant leaves a valid catalog and never a catalog entry or a
    /// `<id>.<ext>` for a partial file. Killed while the upload temp grows.
    @Test func publish_killedMidUpload_leavesValidCatalogWithoutTheRelease_SPEC2() throws {
        let kept = try publish(try modelFile("small.onnx", size: 316))
        let big = scratch.appendingPathComponent("big.bin")
        let writer = try ChildProcess.run(URL(fileURLWithPath: "/bin/sh"), ["-c", "head -c 314572800 /dev/urandom > '\(big.path)'"])
        #expect(writer.status == 0, "\(writer.stderr)")

        let id = "5d1c0c4e-8a53-4b0e-9f3e-2b6c7d8e9f01"
        let process = try ChildProcess.start(TestBinaries.modelctl,
                                             ["publish", big.path, "--sdk-min", "1", "--models-dir", models.path, "--id", id, "--instance", "killtest"])

        // Poll (bounded) until the temp in .tmp/ holds some of the file, then kill.
        let tmp = models.appendingPathComponent(".tmp")
        let deadline = ContinuousClock.now + .seconds(30)
        var grown = false
        while !grown, process.isRunning, ContinuousClock.now < deadline {
            grown = entries(tmp).contains { name in
                let size = (try? FileManager.default.attributesOfItem(atPath: tmp.appendingPathComponent(name).path)[.size] as? Int) ?? 0
                return name.hasPrefix("killtest-") && size >= 8 << 20
            }
            if !grown { usleep(2_000) }
        }
        process.signal(SIGKILL)
        let status = try process.wait(timeout: .seconds(10)).status
        try #require(grown, "the upload temp never grew (exit status \(status))")
        #expect(status == -SIGKILL, "killed before it finished")

        let keptID = try #require(kept["id"] as? String)
        #expect(try releases().compactMap { $0["id"] as? String } == [keptID], "valid catalog, without the killed release")
        #expect(!FileManager.default.fileExists(atPath: models.appendingPathComponent("\(id).bin").path), "no partial <id>.<ext>")
        #expect(entries(tmp).allSatisfy { $0.hasPrefix("killtest-") }, "only the abandoned temp, which nothing serves")
        #expect(try modelctl(["verify", "--models-dir", models.path]).status == 0)

        let retry = try publish(try modelFile("again.bin", size: 10), ["--id", id])
        #expect(retry["id"] as? String == id, "the killed publish did not consume the id")
    }

    // MARK: - verify

    @Test func verify_goodDirectory_exits0WithSummary_SPEC7_1() throws {
        _ = try publish(try modelFile("a.onnx", size: 2 << 20 + 1))
        _ = try publish(try modelFile("b.gguf", size: 0))
        let result = try modelctl(["verify", "--models-dir", models.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("ok: 2 files (2.0 MiB) in \(models.path) match the catalog"), "\(result.stdout)")

        let report = try json(try modelctl(["verify", "--models-dir", models.path, "--json"]).stdout)
        #expect(report["ok"] as? Bool == true && report["checked"] as? Int == 2 && (report["problems"] as? [Any])?.isEmpty == true)
    }

    @Test func verify_namesCorruptedAndMissingFiles_exits1_SPEC7_1() throws {
        let corrupted = try #require(try publish(try modelFile("a.onnx", size: 70_000))["id"] as? String)
        let missing = try #require(try publish(try modelFile("b.onnx", size: 10))["id"] as? String)
        let truncated = try #require(try publish(try modelFile("c.onnx", size: 10))["id"] as? String)
        _ = try publish(try modelFile("d.onnx", size: 10))

        // Flip one byte in the middle: same size, different hash.
        let handle = try FileHandle(forUpdating: models.appendingPathComponent("\(corrupted).onnx"))
        try handle.seek(toOffset: 65_536)
        let byte = try #require(try handle.read(upToCount: 1)?.first)
        try handle.seek(toOffset: 65_536)
        try handle.write(contentsOf: [byte ^ 0xFF])
        try handle.close()
        try FileManager.default.removeItem(at: models.appendingPathComponent("\(missing).onnx"))
        try Data(count: 9).write(to: models.appendingPathComponent("\(truncated).onnx"))

        let result = try modelctl(["verify", "--models-dir", models.path])
        #expect(result.status == 1)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 3, "\(result.stdout)")
        #expect(lines.contains { $0.hasPrefix("\(corrupted) \(corrupted).onnx: sha256 ") })
        #expect(lines.contains("\(missing) \(missing).onnx: missing"))
        #expect(lines.contains("\(truncated) \(truncated).onnx: size 9 bytes, catalog says 10"))
        #expect(result.stderr == "modelctl: 3 of 4 files in \(models.path) do not match the catalog\n")

        let report = try json(try modelctl(["verify", "--models-dir", models.path, "--json"]).stdout)
        let problems = try #require(report["problems"] as? [[String: Any]])
        #expect(report["ok"] as? Bool == false)
        #expect(Dictionary(uniqueKeysWithValues: problems.map { ($0["id"] as? String ?? "", $0["problem"] as? String ?? "") })
            == [corrupted: "sha256_mismatch", missing: "missing", truncated: "size_mismatch"])
    }

    @Test func verify_skipsFilesGarbageCollected_SPEC7_1() throws {
        let id = try #require(try publish(try modelFile("a.onnx", size: 10))["id"] as? String)
        try FileManager.default.removeItem(at: models.appendingPathComponent("\(id).onnx"))
        // What GC leaves: the entry stays, retired and marked file_deleted_at, in a new version.
        var document = try catalog()
        document["catalog_version"] = (document["catalog_version"] as? Int ?? 0) + 1
        var entries = try releases()
        entries[0]["state"] = "retired"
        entries[0]["retired_at"] = "2026-01-01T00:00:00.000Z"
        entries[0]["file_deleted_at"] = "2026-01-09T00:00:00.000Z"
        document["releases"] = entries
        try JSONSerialization.data(withJSONObject: document).write(to: models.appendingPathComponent("catalog.json"))

        let result = try modelctl(["verify", "--models-dir", models.path])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("ok: 0 files") && result.stdout.contains("1 skipped (file deleted)"))
    }

    @Test func verify_missingDirectoryOrCorruptCatalog_exits1() throws {
        let absent = try modelctl(["verify", "--models-dir", models.path])
        #expect(absent.status == 1 && absent.stderr == "modelctl: no models directory \(models.path)\n")

        try FileManager.default.createDirectory(at: models, withIntermediateDirectories: true)
        try Data("{\"format\":1,".utf8).write(to: models.appendingPathComponent("catalog.json"))
        let corrupt = try modelctl(["verify", "--models-dir", models.path])
        #expect(corrupt.status == 1 && corrupt.stderr.hasPrefix("modelctl: \(models.path)/catalog.json: "), "\(corrupt.stderr)")
    }
}

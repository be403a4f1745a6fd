import ChildProcesses
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Catalog changes from outside the process, SIGHUP, corrupt catalogs, and a crash mid-upload
/// (SPEC §2, §8, §9).
@Suite(.serialized) final class CatalogReloadTests {
    /// A second release written into models/ by "another process" (this test): the file first,
    /// then the catalog replaced atomically — what a publisher on a shared volume does.
    private func publishBehindTheServersBack(_ fx: CatalogFixture, label: String) throws -> String {
        let id = UUID().uuidString.lowercased()
        let bytes = Data("written by another process \(label)".utf8)
        try bytes.write(to: fx.server.modelsDir.appendingPathComponent("\(id).onnx"))
        var catalog = try fx.catalogOnDisk()
        let seq = try #require(catalog["next_seq"] as? Int)
        var releases = try #require(catalog["releases"] as? [[String: Any]])
        releases.append([
            "id": id, "seq": seq, "file": "\(id).onnx", "ext": "onnx", "sha256": try SHA256Sum.of(bytes),
            "size": bytes.count, "sdk_min": "1.0", "channel": "stable", "rollout_percent": 100, "state": "active",
            "label": label, "published_at": "2026-11-22T22:00:00.000Z", "content_type": "application/octet-stream",
        ])
        catalog["releases"] = releases
        catalog["next_seq"] = seq + 1
        try fx.replaceCatalogAtomically(try JSONSerialization.data(withJSONObject: catalog))
        return id
    }

    @Test func changeByAnotherProcess_isServedWithin2s_SPEC8_9() throws {
        let fx = try CatalogFixture(empty: false)   // the shipped demo catalog
        let demo = try #require(try fx.latestID("sdk=1.0"))
        let reloadsBefore = try #require(try fx.metric("modeld_catalog_reloads_total"))
        let id = try publishBehindTheServersBack(fx, label: "external")
        let start = Date()
        let seen = try ModeldServer.eventually(within: 2.0) { try fx.latestID("sdk=1.0") == id }
        #expect(seen, "served within 2 s (took \(Date().timeIntervalSince(start)) s)")
        #expect(try fx.curl("/models/\(id).onnx").text == "written by another process external")
        #expect(try #require(try fx.metric("modeld_catalog_reloads_total")) > reloadsBefore)
        #expect(id != demo)
    }

    @Test func sighup_reloadsEvenWhenTheFileLooksUnchanged_SPEC8() throws {
        let fx = try CatalogFixture(empty: false)
        let catalogPath = fx.server.modelsDir.appendingPathComponent("catalog.json").path
        var st = stat()
        try #require(stat(catalogPath, &st) == 0)
        // Same size, same inode, mtime put back to the nanosecond: only SIGHUP can notice.
        let text = try String(contentsOfFile: catalogPath, encoding: .utf8)
        try #require(text.contains(#""label":"demo""#))
        let edited = text.replacingOccurrences(of: #""label":"demo""#, with: #""label":"hupd""#)
        let fd = open(catalogPath, O_WRONLY)
        try #require(fd >= 0)
        _ = Array(edited.utf8).withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        fsync(fd)
        close(fd)
        var times = [st.st_atim, st.st_mtim]
        try #require(utimensat(AT_FDCWD, catalogPath, &times, 0) == 0)

        fx.server.signal(SIGHUP)
        let seen = try ModeldServer.eventually(within: 5) {
            try fx.curl("/latest?sdk=1.0").json?["label"] as? String == "hupd"
        }
        #expect(seen)
        #expect(ModeldServer.eventually(within: 5) { fx.server.log.contains("SIGHUP: catalog reloaded") })
    }

    @Test func corruptCatalog_isRefused_oldOneKeepsServing_SPEC8() throws {
        let fx = try CatalogFixture(empty: false)
        let good = try Data(contentsOf: fx.server.modelsDir.appendingPathComponent("catalog.json"))
        let demo = try fx.curl("/latest?sdk=1.0")
        let demoID = try #require(demo.json?["id"] as? String)
        let file = try #require(demo.json?["url"] as? String).components(separatedBy: "/models/")[1]
        let failuresBefore = try #require(try fx.metric("modeld_catalog_reload_failures_total"))

        for (n, corrupt) in [Data(#"{"format":1,"next_seq":2,"releases":[{"id":"#.utf8), Data("\u{0}garbage".utf8),
                             Data(#"{"format":1,"next_seq":2,"releases":[{"id":"not-a-uuid"}]}"#.utf8)].enumerated() {
            try fx.replaceCatalogAtomically(corrupt)
            let refused = try ModeldServer.eventually(within: 2.0) {
                try #require(try fx.metric("modeld_catalog_reload_failures_total")) >= failuresBefore + Double(n + 1)
            }
            #expect(refused, "corrupt version \(n) counted as a reload failure")
            let still = try fx.curl("/latest?sdk=1.0")
            #expect(still.status == 200 && still.json?["id"] as? String == demoID, "the old catalog keeps serving")
            #expect(try fx.curl("/models/\(file)").status == 200)
        }
        #expect(fx.server.log.contains("catalog refused"))
        // SIGHUP on a corrupt file is refused as well and logged.
        fx.server.signal(SIGHUP)
        #expect(ModeldServer.eventually(within: 5) { fx.server.log.contains("SIGHUP: catalog refused") })
        #expect(try fx.latestID("sdk=1.0") == demoID)

        // Repaired: picked up again.
        try fx.replaceCatalogAtomically(good)
        let id = try publishBehindTheServersBack(fx, label: "after repair")
        #expect(try ModeldServer.eventually(within: 2.0) { try fx.latestID("sdk=1.0") == id })
    }

    @Test func sigkillDuringLargeUpload_restartLeavesValidCatalogAndNoTemp_SPEC2() throws {
        let fx = try CatalogFixture()
        let kept = try fx.publish(try fx.randomFile(size: 10_000), ["--label", "before crash"])
        // 200 MB, sparse (fast to make), streamed slowly enough to be caught mid-way.
        let big = fx.scratch.appendingPathComponent("big.bin")
        try #require(FileManager.default.createFile(atPath: big.path, contents: nil))
        try #require(truncate(big.path, 200_000_000) == 0)
        let upload = try ChildProcess.start(Curl.executable, ["-sS", "--noproxy", "*", "--limit-rate", "20M", "-o", "/dev/null", "-T", big.path, "-X", "POST",
                            "-H", "Authorization: Bearer \(fx.server.token)", fx.base + "/admin/models?sdk_min=1.0&ext=bin"])
        defer { upload.signal(SIGKILL); _ = try? upload.wait(timeout: .seconds(10)) }  // SIGKILLed: it cannot outlive the wait

        let tmpDir = fx.server.modelsDir.appendingPathComponent(".tmp")
        func tmpBytes() -> Int {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: tmpDir.path)) ?? []
            return names.reduce(0) { sum, name in
                sum + ((try? FileManager.default.attributesOfItem(atPath: tmpDir.appendingPathComponent(name).path)[.size] as? Int) ?? 0)
            }
        }
        // Growing: past 10 MB, then more a moment later.
        #expect(ModeldServer.eventually(within: 30) { tmpBytes() > 10_000_000 }, "upload reached models/.tmp")
        let first = tmpBytes()
        #expect(ModeldServer.eventually(within: 10) { tmpBytes() > first })
        #expect(upload.isRunning, "killed mid-way, not after the upload finished")
        try fx.server.kill()
        #expect(!fx.modelsEntries().tmp.isEmpty, "the crash left a partial temp behind")

        // Another replica's upload in progress in the shared models/.tmp must survive our start-up.
        let foreign = tmpDir.appendingPathComponent("other-replica-0123456789abcdef")
        try Data("theirs".utf8).write(to: foreign)
        try fx.server.restart()
        #expect(fx.modelsEntries().tmp == [foreign.lastPathComponent], "only this instance's temp cleaned at start-up")
        try FileManager.default.removeItem(at: foreign)
        #expect(fx.server.log.contains("unfinished upload"))
        // The catalog is valid and every release it names has its whole file.
        let releases = try #require(try fx.curl("/admin/models", fx.auth).json?["releases"] as? [[String: Any]])
        #expect(releases.count == 1)
        #expect(releases.first?["id"] as? String == kept["id"] as? String)
        for r in releases {
            let path = fx.server.modelsDir.appendingPathComponent(try #require(r["file"] as? String))
            #expect(try SHA256Sum.of(path) == r["sha256"] as? String)
        }
        let catalog = try fx.catalogOnDisk()
        #expect((catalog["releases"] as? [Any])?.count == 1)
        #expect(try fx.latestID("sdk=1.0") == kept["id"] as? String)
        let leftovers = fx.modelsEntries().models.filter { !["catalog.json", "latest_model_details.json", ".tmp", ".lock", ".derive.lock", "rules"].contains($0) }
        let keptFile = kept["file"] as! String
        #expect(leftovers == [keptFile, keptFile + ".chunks"], "no stray model file or chunk list (SPEC §14): \(leftovers)")
    }
}

import ChildProcesses
import Foundation
import Testing

/// SPEC §2: at start-up modeld removes every file in `models/.tmp/` that is its own instance's
/// (`<instance_id>-…`, whatever the suffix) and never another instance's — replicas share the
/// directory and may be mid-upload.
@Suite struct CatalogTempCleanupTests {
    @Test func startUpRemovesOwnTempsOfAnySuffix_keepsOthers_SPEC2() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("modeld-tmpclean-\(UUID().uuidString)")
        let tmp = root.appendingPathComponent("models/.tmp")
        try FileManager.default.createDirectory(at: tmp, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let own = ["web-1-0123456789abcdef", "web-1-0123456789abcdef.part", "web-1-f00d", "web-1-1a2b.sig.tmp"]
        // `web-1-b` and `web-10` are other instances: `web-1-b-…` starts with "web-1-" but is theirs.
        let others = ["web-1-b-0123456789abcdef", "web-10-0123456789abcdef", "modelctl-4242-0123456789abcdef", "web-2-0123456789abcdef.part"]
        for name in own + others { try Data(name.utf8).write(to: tmp.appendingPathComponent(name)) }

        let server = try ModeldServer(environment: ["MODELD_INSTANCE_ID": "web-1"], root: root)
        let left = { Set((try? FileManager.default.contentsOfDirectory(atPath: tmp.path)) ?? []) }
        #expect(ModeldServer.eventually(within: 5) { left().isDisjoint(with: own) }, "own temps left: \(left().intersection(own))")
        #expect(left() == Set(others), "\(left())")
        for name in others { #expect(try String(contentsOf: tmp.appendingPathComponent(name), encoding: .utf8) == name) }
        #expect(server.log.contains("removed \(own.count) unfinished upload(s)"), "\(server.log)")
    }

    /// Temps of killed writers, any instance's or modelctl's, go once older than an hour (they
    /// would stay forever otherwise); a fresh one may be a live writer's and stays. One of them
    /// is left by a real `modelctl publish --models-dir` killed with SIGKILL mid-copy, then aged.
    @Test func killedWritersTempsAreRemovedOnceStale_freshOnesKept() throws {
        let fm = FileManager.default
        let root = fm.temporaryDirectory.appendingPathComponent("modeld-staletemps-\(UUID().uuidString)")
        let models = root.appendingPathComponent("models"), data = root.appendingPathComponent("data")
        try fm.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? fm.removeItem(at: root) }
        try fm.copyItem(at: ModeldServer.repositoryRoot.appendingPathComponent("models"), to: models)

        // A real writer killed between creating its temp and the rename.
        let big = root.appendingPathComponent("big.bin")
        let head = try ChildProcess.run(URL(fileURLWithPath: "/bin/sh"), ["-c", "head -c 67108864 /dev/urandom > '\(big.path)'"])
        try #require(head.status == 0, "\(head.stderr)")
        let process = try ChildProcess.start(TestBinaries.modelctl,
                                             ["publish", big.path, "--sdk-min", "1", "--models-dir", models.path, "--instance", "gone"])
        let uploads = models.appendingPathComponent(".tmp")
        let names = { (dir: URL) in Set((try? fm.contentsOfDirectory(atPath: dir.path)) ?? []) }
        let size = { (url: URL) in (try? fm.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0 }
        #expect(ModeldServer.eventually(within: 30) { names(uploads).contains { $0.hasPrefix("gone-") && size(uploads.appendingPathComponent($0)) >= 4 << 20 } })
        process.signal(SIGKILL)
        #expect(try process.wait(timeout: .seconds(10)).status == -SIGKILL, "killed before it finished")
        let killed = try #require(names(uploads).first { $0.hasPrefix("gone-") })

        let stale: [URL] = [
            uploads.appendingPathComponent(killed),
            models.appendingPathComponent(".catalog.json.tmp-4242-0123456789ab"),
            models.appendingPathComponent("details/.7.json.tmp-4242-0123456789ab"),
            models.appendingPathComponent("rules/stable/.7.json.tmp-4242-0123456789ab"),
            data.appendingPathComponent("guard-state/.0a.json.tmp-4242-0123456789ab"),
            data.appendingPathComponent("events/2026-11-20/.web-1-000001.jsonl.idx.tmp-4242-0123456789ab"),
        ]
        let fresh: [URL] = [
            uploads.appendingPathComponent("alive-0123456789abcdef"),
            models.appendingPathComponent(".latest_model_details.json.tmp-4243-0123456789ab"),
            data.appendingPathComponent("guard-state/.0b.json.tmp-4243-0123456789ab"),
        ]
        let oldButNotTemp = models.appendingPathComponent("notes.txt")
        for url in stale + fresh + [oldButNotTemp] where !fm.fileExists(atPath: url.path) {
            try fm.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data("x".utf8).write(to: url)
        }
        let twoHoursAgo = Date(timeIntervalSinceNow: -7_200)
        for url in stale + [oldButNotTemp] { try fm.setAttributes([.modificationDate: twoHoursAgo], ofItemAtPath: url.path) }

        let server = try ModeldServer(root: root)
        let exists = { (url: URL) in fm.fileExists(atPath: url.path) }
        #expect(ModeldServer.eventually(within: 10) { !stale.contains(where: exists) }, "left: \(stale.filter(exists).map(\.path))")
        #expect(fresh.allSatisfy(exists) && exists(oldButNotTemp))
        #expect(ModeldServer.eventually(within: 5) { server.log.contains("temp file(s) left by killed writers") }, "\(server.log)")
    }
}

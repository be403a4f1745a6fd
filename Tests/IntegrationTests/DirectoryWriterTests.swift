import ChildProcesses
import Foundation
import Testing
import TestRandomness

/// One writer per models directory (SPEC §16.1; docs/decisions/directory-writer.md) through
/// the real binaries: replicas sharing `models/` with and without `pack_at_publish`, the
/// derive lock taken over after a SIGKILL, a read-only models directory, and records written
/// in groups by `modelctl packs derive`.
@Suite(.serialized) final class DirectoryWriterTests {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("writer-it-\(UUID().uuidString)")
    var models: URL { root.appendingPathComponent("models") }
    var scratch: URL { root.appendingPathComponent("scratch") }
    /// A stand-by retries the derive lock this often here (SPEC §16.1: a minute in production).
    static let retry = ["MODELD_TEST_DERIVE_RETRY_MS": "200", "MODELD_RETIRED_GRACE_DAYS": "0"]

    init() throws {
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: models, withIntermediateDirectories: true)
        // The servers' configured base (ModeldServer's), so they may write this catalog.
        let r = try ChildProcess.run(TestBinaries.modelctl, ["catalog", "set-base-url", "http://models.example.test", "--models-dir", models.path],
                                     directory: scratch, timeout: .seconds(60))
        try #require(r.status == 0, "\(r.stderr)")
    }

    deinit { try? FileManager.default.removeItem(at: root) }

    func modelctl(_ arguments: [String]) throws -> ProcessResult {
        try ChildProcess.run(TestBinaries.modelctl, arguments, directory: scratch, timeout: .seconds(120))
    }

    /// Publishes `count` float32 files offline (`publish --models-dir`: underived) and answers their ids.
    @discardableResult
    func publishOffline(_ count: Int, floats: Int = 16 * 1024, seed: UInt64) throws -> [String] {
        var ids: [String] = []
        var weights = SyntheticWeights.float32(floats, seed: seed)
        for i in 0..<count {
            let file = scratch.appendingPathComponent("w\(seed)-\(i).bin")
            try SyntheticWeights.data(weights).write(to: file)
            let r = try modelctl(["publish", file.path, "--sdk-min", "1.0", "--models-dir", models.path, "--json"])
            try #require(r.status == 0, "\(r.stderr)")
            ids.append(try #require((try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])?["id"] as? String))
            weights = SyntheticWeights.fineTune(weights, change: 1e-3, seed: seed + UInt64(i) + 1)
        }
        return ids
    }

    func catalog() throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: models.appendingPathComponent("catalog.json"))) as? [String: Any])
    }

    /// True when every release in `ids` has its record (`patches` present, SPEC §16.1).
    func derived(_ ids: [String]) throws -> Bool {
        let releases = try catalog()["releases"] as? [[String: Any]] ?? []
        return ids.allSatisfy { id in releases.first { $0["id"] as? String == id }?["patches"] != nil }
    }

    /// Every entry under models/ with its inode, size and modification time: what "writes
    /// nothing" compares.
    func tree() throws -> [String: String] {
        var out: [String: String] = [:]
        let fm = FileManager.default
        for path in fm.subpaths(atPath: models.path) ?? [] {
            var st = stat()
            guard lstat(models.appendingPathComponent(path).path, &st) == 0 else { continue }
            out[path] = "\(st.st_ino) \(st.st_size) \(st.st_mtim.tv_sec).\(st.st_mtim.tv_nsec)"
        }
        return out
    }

    /// Waits (bounded) until `server`'s watcher has polled `count` more times: every start-up
    /// duty and a catalog change had time to run.
    func polls(_ server: ModeldServer, _ count: Double) throws -> Bool {
        let start = try EventsHTTP.metric(server.port, "modeld_catalog_polls_total")
        return try ModeldServer.eventually(within: 30) { try EventsHTTP.metric(server.port, "modeld_catalog_polls_total") >= start + count }
    }

    func lines(_ log: String, level: String) -> [Substring] { log.split(separator: "\n").filter { $0.contains(" \(level) ") } }

    /// Each `derived <file>` line of the logs, counted per file.
    func derivedCounts(_ logs: [String]) -> [String: Int] {
        var counts: [String: Int] = [:]
        for log in logs {
            for line in log.split(separator: "\n") {
                guard let r = line.range(of: "derived ") else { continue }
                counts[String(line[r.upperBound...].prefix { $0 != ":" }), default: 0] += 1
            }
        }
        return counts
    }

    @Test(.timeLimit(.minutes(4)))
    func standbysWriteNothing_theHolderDerivesEachFileOnce_andIsTakenOverAfterSIGKILL_SPEC16_1() throws {
        let first = try publishOffline(3, seed: 11)
        // Work every duty would do: underived files, a retired release past its grace (0 days)
        // to collect, and rules files to rewrite.
        #expect(try modelctl(["retire", first[0], "--models-dir", models.path]).status == 0)
        try FileManager.default.removeItem(at: models.appendingPathComponent("rules"))

        // 1. pack_at_publish false, alone: nothing under models/ changes, no lock file appears.
        let before = try tree()
        let serving = try ModeldServer(environment: Self.retry.merging(["MODELD_PACK_AT_PUBLISH": "false"]) { _, new in new }, root: root)
        #expect(try polls(serving, 5))
        #expect(try tree() == before)
        #expect(!FileManager.default.fileExists(atPath: models.appendingPathComponent(".derive.lock").path))

        // 2. The first instance that may derive holds the lock and does every duty; a second
        //    stands by, and takes over within its retry when the holder is SIGKILLed.
        let deriving = Self.retry.merging(["MODELD_PACK_AT_PUBLISH": "true"]) { _, new in new }
        let holder = try ModeldServer(environment: deriving, root: root)
        #expect(try ModeldServer.eventually(within: 90) {
            try derived(Array(first.dropFirst())) && FileManager.default.fileExists(atPath: models.appendingPathComponent("rules").path)
        }, "\(holder.log)")
        #expect(holder.log.contains("holds \(models.path)/.derive.lock"), "\(holder.log)")
        #expect(ModeldServer.eventually(within: 20) { derivedCounts([holder.log]).count == 2 })   // logged after its record
        let standby = try ModeldServer(environment: deriving, root: root)
        #expect(ModeldServer.eventually(within: 20) { standby.log.contains("another instance holds") }, "\(standby.log)")
        try holder.kill()
        #expect(ModeldServer.eventually(within: 20) { standby.log.contains("this instance holds") }, "\(standby.log)")
        standby.signal(SIGTERM)
        #expect(standby.waitForExit(within: 20) == 0)

        // 3. The lock held by another process (a POSIX lock, which OFD locks conflict with): a
        //    deriver stands by, and an offline change with underived files and missing rules
        //    stays exactly as modelctl left it.
        let lockLog = root.appendingPathComponent("lock-holder.log")
        let lockHolder = try ChildProcess.start("/usr/bin/python3", ["-c", """
            import fcntl, sys, time
            f = open(sys.argv[1], "a"); fcntl.lockf(f, fcntl.LOCK_EX | fcntl.LOCK_NB); print("locked", flush=True); time.sleep(300)
            """, models.appendingPathComponent(".derive.lock").path], log: lockLog.path)
        defer { lockHolder.signal(SIGKILL) }
        #expect(ModeldServer.eventually(within: 20) { ((try? String(contentsOf: lockLog, encoding: .utf8)) ?? "").contains("locked") })
        let late = try ModeldServer(environment: deriving, root: root)
        #expect(ModeldServer.eventually(within: 20) { late.log.contains("another instance holds") }, "\(late.log)")
        let second = try publishOffline(2, seed: 21)
        try FileManager.default.removeItem(at: models.appendingPathComponent("rules"))
        let waiting = try tree()
        #expect(try polls(late, 5) && polls(serving, 5))
        #expect(try tree() == waiting)

        // 4. The holder exits: the stand-by takes over and does the duties.
        lockHolder.signal(SIGKILL)
        #expect(ModeldServer.eventually(within: 20) { late.log.contains("this instance holds") }, "\(late.log)")
        #expect(try ModeldServer.eventually(within: 90) {
            try derived(second) && FileManager.default.fileExists(atPath: models.appendingPathComponent("rules").path)
        }, "\(late.log)")

        // Each file derived once across the derivers (a line is logged just after its record
        // lands); the serving replica derived nothing.
        let logs = { [holder.log, standby.log, late.log] }
        #expect(ModeldServer.eventually(within: 20) { derivedCounts(logs()).count >= 4 })
        let counts = derivedCounts(logs())
        #expect(counts.count == 4 && counts.values.allSatisfy { $0 == 1 }, "\(counts)\n\(logs().joined(separator: "\n---\n"))")
        #expect(derivedCounts([serving.log]).isEmpty)
        for log in [serving.log, standby.log, late.log] { #expect(lines(log, level: "error").isEmpty, "\(log)") }
        #expect(try Curl.run(["\(serving.url)/latest?sdk=1.0"]).json?["patches"] != nil)
    }

    /// How modeld can be run on a models directory it cannot write, here: a read-only bind
    /// mount in a private mount namespace where that is allowed (root with CAP_SYS_ADMIN, as
    /// here and in CI containers run privileged), else plain permissions for a non-root user,
    /// else (root without it) an unprivileged uid. Answers the launcher and what to undo.
    func readOnlyLauncher() throws -> (launcher: [String], undo: () -> Void) {
        if (try? ChildProcess.run("/usr/bin/unshare", ["-m", "--propagation", "private", "true"], timeout: .seconds(10)).status) == 0 {
            let script = #"mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" && exec "$@""#
            return (["/usr/bin/unshare", "-m", "--propagation", "private", "/bin/sh", "-c", script, models.path], {})
        }
        if geteuid() != 0 {
            _ = try ChildProcess.run("/bin/chmod", ["-R", "a-w", models.path], timeout: .seconds(10))
            return ([], { [models] in _ = try? ChildProcess.run("/bin/chmod", ["-R", "u+w", models.path], timeout: .seconds(10)) })
        }
        let data = root.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        _ = try ChildProcess.run("/bin/chmod", ["-R", "a+rwX", data.path], timeout: .seconds(10))
        _ = try ChildProcess.run("/bin/chmod", ["a+rx", root.path], timeout: .seconds(10))
        return (["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"], {})
    }

    @Test(.timeLimit(.minutes(2)))
    func readOnlyModelsDirectory_servesWithOneNoticeAndNoError_SPEC16_1() throws {
        let ids = try publishOffline(2, seed: 31)
        try FileManager.default.removeItem(at: models.appendingPathComponent("rules"))   // duties a writer would do
        let before = try tree()
        let (launcher, undo) = try readOnlyLauncher()
        defer { undo() }
        let server = try ModeldServer(environment: Self.retry.merging(["MODELD_PACK_AT_PUBLISH": "true"]) { _, new in new },
                                      root: root, launcher: launcher)
        #expect(try polls(server, 5))   // the start-up duties and several lock retries
        let latest = try Curl.run(["\(server.url)/latest?sdk=1.0"])
        #expect(latest.status == 200 && latest.json?["id"] as? String == ids[1])
        #expect(try tree() == before)
        let log = server.log
        #expect(lines(log, level: "notice").count == 1 && lines(log, level: "notice").first?.contains(".derive.lock") == true, "\(log)")
        #expect(lines(log, level: "error").isEmpty && lines(log, level: "critical").isEmpty, "\(log)")
    }

    /// SPEC §16.1: N files derived in a run of d seconds cost at most ⌈d⌉ + 1 catalog writes.
    @Test(.timeLimit(.minutes(4)))
    func packsDerive_recordsInGroups_atMostOneCatalogWritePerSecond_SPEC16_1() throws {
        let ids = try publishOffline(30, floats: 4 * 1024, seed: 41)
        let version = try #require(try catalog()["catalog_version"] as? Int)
        let start = Date()
        let r = try modelctl(["packs", "derive", "--models-dir", models.path])
        let seconds = Date().timeIntervalSince(start)
        #expect(r.status == 0 && r.stdout.contains("30 file(s) derived"), "\(r.stdout)\(r.stderr)")
        let writes = try #require(try catalog()["catalog_version"] as? Int) - version
        #expect(writes >= 1 && Double(writes) <= seconds.rounded(.up) + 1, "\(writes) writes in \(seconds) s")
        #expect(try derived(ids))
    }
}

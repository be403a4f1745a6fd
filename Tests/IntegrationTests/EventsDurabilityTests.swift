import ChildProcesses
import Foundation
import HTTPWire
import Synchronization
import Testing

/// Memory, group commit, crash safety and a full disk with the real server (SPEC §4.2, §5).
@Suite(.serialized) final class EventsDurabilityTests {
    /// `VmRSS` / `VmHWM` of a process, in bytes.
    static func memory(_ pid: Int32) -> (rss: Int, hwm: Int) {
        let text = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        func field(_ name: String) -> Int {
            guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(name + ":") }) else { return -1 }
            return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1) * 1024
        }
        return (field("VmRSS"), field("VmHWM"))
    }

    /// Runs `body(i)` on `count` real threads started together; returns when all are done (bounded).
    static func onThreads(_ count: Int, within seconds: Double = 60, _ body: @escaping @Sendable (Int) -> Void) -> Bool {
        let group = DispatchGroup()
        let start = DispatchSemaphore(value: 0)
        for i in 0..<count {
            group.enter()
            let t = Thread {
                start.wait()
                body(i)
                group.leave()
            }
            t.stackSize = 1 << 20
            t.start()
        }
        for _ in 0..<count { start.signal() }
        return group.wait(timeout: .now() + seconds) == .success
    }

    @Test func gzipBomb_is413_withoutGrowingTheServer_SPEC4_2() throws {
        let server = try ModeldServer()
        let bomb = Gzip.compress([UInt8](repeating: 0, count: 64 << 20))
        #expect(bomb.count < 1 << 20, "the bomb itself fits max_event_body_bytes: \(bomb.count)")
        // Warm the path once so the baseline includes a served event request.
        _ = try EventsHTTP.postEvents(server.port, EventsFixture.batch("warm", events: [EventsFixture.event()]), gzip: true)
        let before = Self.memory(server.pid)
        for _ in 0..<3 {
            let reply = try EventsHTTP.request(server.port, "POST", "/events",
                                               headers: [("Content-Type", "application/json"), ("Content-Encoding", "gzip")],
                                               body: bomb, timeout: 1)
            #expect(reply.status == 413, "\(reply.text)")
            #expect(reply.errorCode == "body_too_large")
        }
        let after = Self.memory(server.pid)
        #expect(before.rss > 0 && after.hwm > 0)
        #expect(after.hwm - before.hwm < 16 << 20, "VmHWM \(before.hwm) → \(after.hwm)")
        #expect(after.rss - before.rss < 16 << 20, "VmRSS \(before.rss) → \(after.rss)")
        #expect(EventsFixture.storedObjects(server.dataDir, batchID: "warm").count == 1)
    }

    @Test func concurrentPosts_shareCommits_SPEC4_2() throws {
        let server = try ModeldServer()
        let port = server.port
        let batches0 = try EventsHTTP.metric(port, "modeld_event_batches_total")
        let commits0 = try EventsHTTP.metric(port, "modeld_event_commits_total")
        let statuses = Mutex<[Int]>([])
        // A large unknown field: cheap to scan, but it makes each fdatasync flush real pages, so the
        // commits are not over before the (debug-built) server has parsed the next request.
        let blob = #","blob":""# + String(repeating: "a", count: 256 << 10) + "\""
        // Every request is sent but its last byte; all 64 last bytes go out together.
        let ready = DispatchSemaphore(value: 0), go = DispatchSemaphore(value: 0)
        Thread {
            for _ in 0..<64 { _ = ready.wait(timeout: .now() + 20) }
            for _ in 0..<64 { go.signal() }
        }.start()
        #expect(Self.onThreads(64) { i in
            let body = EventsFixture.batch("gc-\(i)", events: [EventsFixture.event(extra: blob)])
            let status = (try? EventsHTTP.request(port, "POST", "/events", headers: [("Content-Type", "application/json")], body: body,
                                                  beforeLastByte: { ready.signal(); _ = go.wait(timeout: .now() + 30) }))?.status ?? -1
            statuses.withLock { $0.append(status) }
        })
        #expect(statuses.withLock { $0 } == [Int](repeating: 200, count: 64))
        let batches = try EventsHTTP.metric(port, "modeld_event_batches_total") - batches0
        let commits = try EventsHTTP.metric(port, "modeld_event_commits_total") - commits0
        #expect(batches == 64)
        #expect(commits >= 1 && commits < batches, "commits \(commits) for \(batches) batches")
        #expect(try EventsHTTP.metric(port, #"modeld_events_total{result="accepted"}"#) == 64)
        #expect(EventsFixture.storedLines(server.dataDir).count == 64)
    }

    /// Under strace: every response that acknowledges a batch leaves after the fdatasync that
    /// followed the write of that batch's lines.
    /// Skipped (with a message) when strace is missing or ptrace is not permitted.
    @Test func noResponseBeforeItsCommit_straced_SPEC4_2() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/strace") else {
            print("skipped: strace not installed"); return
        }
        let probe = try ChildProcess.run(URL(fileURLWithPath: "/usr/bin/strace"), ["-f", "-o", "/dev/null", "/bin/true"])
        guard probe.status == 0 else { print("skipped: ptrace not permitted: \(probe.stderr)"); return }

        let root = FileManager.default.temporaryDirectory.appendingPathComponent("modeld-strace-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: ModeldServer.repositoryRoot.appendingPathComponent("models"), to: root.appendingPathComponent("models"))
        let trace = root.appendingPathComponent("trace.txt"), log = root.appendingPathComponent("log.txt")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let p = try ChildProcess.start("/usr/bin/strace", ["-f", "-qq", "-s", "8192", "-o", trace.path,
                       "-e", "trace=fdatasync,write,writev,sendmsg,sendto,read,recvfrom,recvmsg,readv",
                       TestBinaries.modeld.path,
                       "--config", ModeldServer.repositoryRoot.appendingPathComponent("config/modeld.json").path,
                       "--listen", "127.0.0.1:0", "--models-dir", root.appendingPathComponent("models").path,
                       "--data-dir", root.appendingPathComponent("data").path, "--public-base-url", "http://x.test"],
                                       environment: ["MODELD_INSTANCE_ID": "strace", "MODELD_ACCESS_LOG": "off"], directory: root.path, log: log.path)
        // strace's child is modeld: a signal to strace only detaches it, so signal modeld itself.
        func tracee() -> Int32? {
            let text = (try? String(contentsOfFile: "/proc/\(p.pid)/task/\(p.pid)/children", encoding: .utf8)) ?? ""
            return text.split(separator: " ").first.flatMap { Int32($0) }
        }
        defer {
            if let child = tracee() { kill(child, SIGKILL) }
            p.signal(SIGKILL)
            _ = try? p.wait(timeout: .seconds(10))  // SIGKILLed: it cannot outlive the wait
        }
        var port = 0
        #expect(ModeldServer.eventually(within: 30) {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            if let r = text.range(of: #"listening on http://127\.0\.0\.1:(\d+)"#, options: .regularExpression) {
                port = Int(text[r].split(separator: ":").last!) ?? 0
            }
            return port > 0 || !p.isRunning
        })
        try #require(port > 0, "modeld under strace did not start")
        let tracedPort = port
        let count = 16
        let ok = Mutex(0)
        #expect(Self.onThreads(count) { i in
            let reply = try? EventsHTTP.postEvents(tracedPort, EventsFixture.batch("st-\(i)", events: [EventsFixture.event()]), timeout: 20)
            if reply?.status == 200 { ok.withLock { $0 += 1 } }
        })
        #expect(ok.withLock { $0 } == count)
        let child = try #require(tracee())
        kill(child, SIGTERM)
        #expect(ModeldServer.eventually(within: 30) { !p.isRunning })

        // Time-ordered lines "PID call(fd, …) = n"; a call another thread interrupted is split into
        // "PID call(fd, … <unfinished ...>" and "PID <... call resumed>…". Written data shows at
        // entry, read data and results at return.
        let lines = try String(contentsOf: trace, encoding: .utf8).split(separator: "\n").map(String.init)
        var pendingFD: [Substring: String] = [:]       // pid → fd of its unfinished call
        var lastRequestOnFD: [String: String] = [:]    // socket fd → batch id of its last request
        var segmentWriteLine: [String: Int] = [:]     // batch id → line of the segment write carrying it
        var syncDone: [Int] = []                        // lines where an fdatasync returned 0
        var checked = 0
        for (n, line) in lines.enumerated() {
            guard let space = line.firstIndex(of: " ") else { continue }
            let pid = line[..<space]
            // strace pads the pid to five columns: skip however many spaces follow it.
            let rest = line[line.index(after: space)...].drop { $0 == " " }
            let resumed = rest.hasPrefix("<... ")
            let call = resumed ? String(rest.dropFirst(5).prefix { $0 != " " })
                               : String(rest.prefix { $0 != "(" })
            var fd: String?
            if resumed {
                fd = pendingFD.removeValue(forKey: pid)
            } else if let open = rest.firstIndex(of: "("), let comma = rest[open...].firstIndex(of: ",") {
                fd = String(rest[rest.index(after: open)..<comma])
                if rest.hasSuffix("<unfinished ...>") { pendingFD[pid] = fd }
            }
            // Plain substring search: Swift Regex over these long lines takes minutes in a debug build.
            let ids = line.components(separatedBy: #"batch_id\":\""#).dropFirst().compactMap { part -> String? in
                guard part.hasPrefix("st-"), let end = part.firstIndex(of: "\\") else { return nil }
                return String(part[..<end])
            }
            switch call {
            case "fdatasync" where line.hasSuffix("= 0"):
                syncDone.append(n)
            case "read", "readv", "recvfrom", "recvmsg":
                if let fd, let id = ids.first { lastRequestOnFD[fd] = id }
            case "write", "writev", "sendmsg", "sendto":
                if resumed { break }
                if line.contains(#"\"received_at\""#) {
                    for id in ids where segmentWriteLine[id] == nil { segmentWriteLine[id] = n }
                } else if line.contains(#"\"accepted\":1"#), let fd, let id = lastRequestOnFD[fd] {
                    let written = try #require(segmentWriteLine[id], "response for \(id) before any write of its lines")
                    #expect(syncDone.contains { $0 > written && $0 < n },
                            "\(id) acknowledged at trace line \(n) without an fdatasync after its write at \(written)")
                    checked += 1
                }
            default: break
            }
        }
        #expect(checked == count, "responses matched to requests in the trace: \(checked)")
        #expect(!syncDone.isEmpty)
    }

    @Test func sigkillUnderLoad_losesNoAcknowledgedBatch_andTornTailIsRepaired_SPEC5() throws {
        let server = try ModeldServer(environment: ["MODELD_INSTANCE_ID": "crash", "MODELD_ACCESS_LOG": "off"])
        let port = server.port
        let acked = Mutex<[String]>([])
        let stop = Atomic<Bool>(false)
        let load = DispatchSemaphore(value: 0)
        Thread {
            _ = Self.onThreads(16) { t in
                var n = 0
                while !stop.load(ordering: .relaxed) {
                    let id = "k\(t)-\(n)"
                    n += 1
                    let body = EventsFixture.batch(id, clientID: "crash-client", events: (0..<3).map { _ in EventsFixture.event() })
                    if let r = try? EventsHTTP.postEvents(port, body, timeout: 5), r.status == 200, r.json["accepted"] as? Int == 3 {
                        acked.withLock { $0.append(id) }
                    }
                }
            }
            load.signal()
        }.start()
        // SIGKILL mid-flight once the load is well under way: 200 more acknowledgements after
        // the first 50 (a condition, not a fixed time, so a slow machine still kills mid-load).
        #expect(ModeldServer.eventually(within: 10) { acked.withLock { $0.count } >= 50 })
        #expect(ModeldServer.eventually(within: 30) { acked.withLock { $0.count } >= 250 })
        server.signal(SIGKILL)
        #expect(server.waitForExit(within: 10) != nil)
        stop.store(true, ordering: .relaxed)
        #expect(load.wait(timeout: .now() + 30) == .success)
        let acknowledged = acked.withLock { $0 }
        #expect(acknowledged.count >= 50)

        // A torn final line, as a crash mid-write leaves it.
        let segments = try FileManager.default.subpathsOfDirectory(atPath: server.dataDir.appendingPathComponent("events").path)
            .filter { $0.hasSuffix(".jsonl") }.sorted()
        let last = server.dataDir.appendingPathComponent("events").appendingPathComponent(try #require(segments.last))
        let handle = try FileHandle(forWritingTo: last)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(#"{"name":"torn","ts":"2026-11-2"#.utf8))
        try handle.close()
        // Readers skip it before the owner restarts.
        let early = try EventsFixture.modelctl(["events", "export", "--data-dir", server.dataDir.path])
        #expect(early.status == 0, "\(early.stderr)")

        try server.restart()
        #expect(server.log.contains("repaired torn event segments"), "\(server.log)")
        let repaired = try Data(contentsOf: last)
        #expect(repaired.last == UInt8(ascii: "\n"), "the owner cut the torn tail")

        let export = try EventsFixture.modelctl(["events", "export", "--data-dir", server.dataDir.path])
        #expect(export.status == 0, "\(export.stderr)")
        var perBatch: [String: Int] = [:]
        var unparsable = 0
        for line in export.stdout.split(separator: "\n") {
            guard let o = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], let id = o["batch_id"] as? String else {
                unparsable += 1; continue
            }
            perBatch[id, default: 0] += 1
        }
        #expect(unparsable == 0)
        let missing = acknowledged.filter { perBatch[$0] != 3 }
        #expect(missing.isEmpty, "acknowledged batches not on disk exactly once: \(missing.prefix(10))")
        // On disk (not only after read-side dedup): each acknowledged batch once, every line JSON.
        var raw: [String: Int] = [:]
        var rawBad = 0
        for line in EventsFixture.storedLines(server.dataDir) {
            guard let o = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], let id = o["batch_id"] as? String else {
                rawBad += 1; continue
            }
            raw[id, default: 0] += 1
        }
        #expect(rawBad == 0)
        #expect(acknowledged.allSatisfy { raw[$0] == 3 })
        #expect(raw.values.allSatisfy { $0 == 3 }, "no batch partially stored")
        // And the restarted owner still knows them: a retry is a duplicate.
        let retry = try EventsHTTP.postEvents(server.port, EventsFixture.batch(acknowledged[0], clientID: "crash-client",
                                                                                events: (0..<3).map { _ in EventsFixture.event() }))
        #expect(retry.json["duplicate"] as? Bool == true, "\(retry.text)")
    }

    @Test func fullDisk_is503RetryAfter_modelsStillServed_andRecovers_SPEC4_2() throws {
        guard getuid() == 0 else { print("skipped: mounting a tmpfs needs root"); return }
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("modeld-full-\(UUID().uuidString)")
        let events = root.appendingPathComponent("data/events")
        try FileManager.default.createDirectory(at: events, withIntermediateDirectories: true)
        let mount = try ChildProcess.run(URL(fileURLWithPath: "/bin/mount"), ["-t", "tmpfs", "-o", "size=2m", "tmpfs", events.path])
        guard mount.status == 0 else {
            print("skipped: mount -t tmpfs not permitted: \(mount.stderr)")
            try? FileManager.default.removeItem(at: root)
            return
        }
        var server: ModeldServer?
        defer {
            if let s = server { s.signal(SIGKILL); s.waitForExit(within: 10) }
            _ = try? ChildProcess.run(URL(fileURLWithPath: "/bin/umount"), [events.path])
            _ = try? ChildProcess.run(URL(fileURLWithPath: "/bin/umount"), ["-l", events.path])
            server = nil
        }
        server = try ModeldServer(environment: ["MODELD_ACCESS_LOG": "off"], root: root)
        let s = try #require(server)
        #expect(try EventsHTTP.postEvents(s.port, EventsFixture.batch("f-0", events: [EventsFixture.event()])).status == 200)

        // Fill the file system.
        let filler = events.appendingPathComponent("filler")
        let fd = open(filler.path, O_WRONLY | O_CREAT, 0o644)
        try #require(fd >= 0)
        let chunk = [UInt8](repeating: 0x41, count: 4096)
        while chunk.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) > 0 {}
        close(fd)

        let body = EventsFixture.batch("f-1", events: (0..<20).map { _ in EventsFixture.event() })
        let full = try EventsHTTP.postEvents(s.port, body)
        #expect(full.status == 503, "\(full.text)")
        #expect(full.errorCode == "unavailable")
        #expect(full.headers["retry-after"] == "5")
        let demo = try #require(try FileManager.default.contentsOfDirectory(atPath: s.modelsDir.path).first { $0.hasSuffix(".onnx") })
        let model = try EventsHTTP.request(s.port, "GET", "/models/\(demo)")
        #expect(model.status == 200 && model.body.count == 316)
        #expect(try EventsHTTP.request(s.port, "GET", "/healthz").status == 200)
        #expect(try EventsHTTP.request(s.port, "GET", "/latest?sdk=2.3").status == 200)
        #expect(try EventsHTTP.postEvents(s.port, body).status == 503, "still full")

        try FileManager.default.removeItem(at: filler)
        var last = 0
        #expect(ModeldServer.eventually(within: 10) {
            last = (try? EventsHTTP.postEvents(s.port, body))?.status ?? -1
            return last == 200
        }, "last status \(last)")
        #expect(EventsFixture.storedObjects(s.dataDir, batchID: "f-1").count == 20)
        #expect(EventsFixture.storedLines(s.dataDir).allSatisfy { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) != nil })
    }
}

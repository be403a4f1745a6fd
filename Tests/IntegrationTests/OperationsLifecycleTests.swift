import ChildProcesses
import Foundation
import Glibc
import HTTPTestSupport
import Testing

/// SPEC §8 signals on the real binary: SIGTERM/SIGINT drain (health 503, `Connection: close`,
/// exit 0 within drain_seconds, access log flushed), SIGHUP reloads the catalog at once.
@Suite(.serialized) final class OperationsLifecycleTests {
    static let drainSeconds = 2.0

    /// A curl that downloads `url` at 1 MB/s (so a 50 MB model takes far longer than the drain).
    private func slowCurl(_ url: String, output: URL) throws -> ChildProcess.Running {
        try ChildProcess.start("/usr/bin/curl", ["-s", "--limit-rate", "1M", "--max-time", "60", "-o", output.path, url])
    }

    @Test(arguments: [SIGTERM, SIGINT])
    func terminatingSignal_drainsThenExits0WithLogFlushed_SPEC8(_ sig: Int32) throws {
        let server = try ModeldServer(environment: ["MODELD_DRAIN_SECONDS": String(Int(Self.drainSeconds))])
        let release = try server.publishRandomModel(size: 50 << 20)
        let file = try #require(release["file"] as? String)
        let partial = server.root.appendingPathComponent("partial.bin")
        let curl = try slowCurl("\(server.url)/models/\(file)", output: partial)
        defer { curl.signal(SIGKILL); _ = try? curl.wait(timeout: .seconds(10)) }  // SIGKILLed: it cannot outlive the wait
        // The download is in flight once bytes arrived.
        #expect(ModeldServer.eventually(within: 10) {
            ((try? FileManager.default.attributesOfItem(atPath: partial.path)[.size] as? Int) ?? 0) > 0
        })

        let signalled = Date()
        server.signal(sig)
        var health: ParsedResponse?
        let draining = ModeldServer.eventually(within: Self.drainSeconds) {
            health = try? HTTP.get(server.port, "/healthz")
            return health?.status == 503
        }
        #expect(draining, "healthz while draining: \(String(describing: health?.status))")
        if let health, draining {
            #expect(health.text == #"{"status":"draining"}"#)
            #expect(health.headers["Connection"]?.lowercased() == "close")
        }
        // Keep-alive is refused during the drain: even a request asking for it gets `Connection: close`.
        if let client = try? RawClient(port: server.port, timeoutSeconds: 2) {
            try? client.send("GET /latest?sdk=2.3 HTTP/1.1\r\nHost: x\r\n\r\n")
            if let r = try? client.readResponse() {
                #expect(r.headers["Connection"]?.lowercased() == "close")
            }
        }

        let status = server.waitForExit(within: Self.drainSeconds + 5)
        let elapsed = Date().timeIntervalSince(signalled)
        #expect(status == 0, "exit status \(String(describing: status)); log:\n\(server.log)")
        #expect(elapsed < Self.drainSeconds + 3, "exited \(elapsed) s after the signal")
        #expect(elapsed >= Self.drainSeconds - 0.5, "the in-flight download was given the drain time (\(elapsed) s)")

        // The cut download and the draining health check are both in the flushed access log.
        let records = server.accessLogRecords()
        #expect(!records.contains { $0 == nil }, "every line is a JSON object")
        let download = records.compactMap { $0 }.first { ($0["path"] as? String) == "/models/\(file)" }
        let bytes = download?["bytes"] as? Int ?? -1
        #expect(bytes > 0 && bytes < 50 << 20, "a cut transfer logs what was sent: \(bytes)")
        #expect(records.compactMap { $0 }.contains { ($0["path"] as? String) == "/healthz" && ($0["status"] as? Int) == 503 })
        #expect(server.log.contains("draining"))
    }

    @Test func sigterm_withNothingInFlight_exitsBeforeTheDrainDeadline_SPEC8() throws {
        let server = try ModeldServer(environment: ["MODELD_DRAIN_SECONDS": "30"])
        #expect(try HTTP.get(server.port, "/healthz").status == 200)
        let start = Date()
        server.signal(SIGTERM)
        #expect(server.waitForExit(within: 10) == 0)
        #expect(Date().timeIntervalSince(start) < 5, "nothing in flight: no need to wait 30 s")
    }

    @Test func sighup_reloadsACatalogThePollCannotSee_SPEC8() throws {
        let server = try ModeldServer()
        #expect(try HTTP.get(server.port, "/latest?sdk=2.3").status == 200)

        // Rewrite catalog.json in place with the same size and the old mtime: the 500 ms poll
        // (inode, size, mtime) sees no change, so only SIGHUP can make the new content live.
        let catalog = server.modelsDir.appendingPathComponent("catalog.json")
        var before = stat()
        #expect(stat(catalog.path, &before) == 0)
        let text = try String(contentsOf: catalog, encoding: .utf8)
        #expect(text.contains(#""sdk_min":"1.0""#))
        let changed = text.replacingOccurrences(of: #""sdk_min":"1.0""#, with: #""sdk_min":"9.0""#)
        let handle = try #require(FileHandle(forUpdatingAtPath: catalog.path))
        try handle.write(contentsOf: Data(changed.utf8))
        try handle.close()
        var times = [before.st_atim, before.st_mtim]
        #expect(utimensat(AT_FDCWD, catalog.path, &times, 0) == 0)

        // Three polls later the old catalog still serves (the poll really is blind to it)...
        let polls = try EventsHTTP.metric(server.port, "modeld_catalog_polls_total")
        var stale = true
        let polled = try ModeldServer.eventually(within: 10) {
            stale = try stale && HTTP.get(server.port, "/latest?sdk=2.3").status == 200
            return try EventsHTTP.metric(server.port, "modeld_catalog_polls_total") >= polls + 3
        }
        #expect(polled, "the watcher polled three more times")
        #expect(stale, "the poll saw a change it cannot see")
        #expect(try HTTP.get(server.port, "/latest?sdk=2.3").status == 200)
        // ...and SIGHUP makes the new one live at once: no release for 2.3 any more.
        server.signal(SIGHUP)
        var status = 0
        #expect(try ModeldServer.eventually(within: 2) {
            status = try HTTP.get(server.port, "/latest?sdk=2.3").status
            return status == 404
        }, "after SIGHUP: \(status)")
        #expect(ModeldServer.eventually(within: 2) { server.log.contains("SIGHUP: catalog reloaded") })
        #expect(server.process.isRunning, "SIGHUP does not stop the server")
    }

    @Test func sighup_corruptCatalogIsRefusedAndTheOldOneKept_SPEC8() throws {
        let server = try ModeldServer()
        let catalog = server.modelsDir.appendingPathComponent("catalog.json")
        try Data("{\"format\":1,\"releases\":[".utf8).write(to: catalog)
        server.signal(SIGHUP)
        #expect(ModeldServer.eventually(within: 3) { server.log.contains("SIGHUP: catalog refused") }, "\(server.log)")
        #expect(try HTTP.get(server.port, "/latest?sdk=2.3").status == 200, "the old catalog still serves")
        #expect(server.process.isRunning)
    }
}

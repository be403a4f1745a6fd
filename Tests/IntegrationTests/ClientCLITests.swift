import ChildProcesses
import Foundation
import Testing

/// `modeld-client` processes against the real modeld through the fault-injecting proxy (SPEC §13).
@Suite(.serialized) final class ClientCLITests {
    let fx: ClientFixture
    init() throws { fx = try ClientFixture() }

    @Test func freshInstall_thenRevalidationAnswers304WithoutDownloading_SPEC13() throws {
        let published = try fx.publish(size: 1 << 20 + 7, ext: "mlmodel")

        let update = try fx.client(["--json", "update"])
        #expect(update.status == 0, "\(update.stderr)")
        #expect(update.stderr.contains("accepting unsigned answers"))
        let doc = try fx.json(update)
        #expect(doc["state"] as? String == "updated")
        let active = try #require(doc["active"] as? [String: Any])
        #expect(active["id"] as? String == published.id && active["sha256"] as? String == published.sha256)
        #expect(active["size"] as? Int == 1 << 20 + 7)
        let path = try #require(active["path"] as? String)
        #expect(path == fx.cache.path + "/channels/stable/models/\(published.id)/model.mlmodel")
        #expect(try SHA256Sum.of(URL(fileURLWithPath: path)) == published.sha256)
        let download = try #require(fx.modelRequests(published.id).first)
        #expect(download.headers["accept-encoding"] == "identity")
        #expect(download.headers["range"] == nil)

        // With the queued model_activated event sent, the next check revalidates with the
        // stored ETag: 304, no file request.
        #expect(try fx.client(["flush"]).status == 0)
        let check = try fx.client(["--json", "check"])
        #expect(check.status == 0, "\(check.stderr)")
        #expect(try fx.json(check)["state"] as? String == "up_to_date")
        #expect(fx.latestRequests.last?.headers["if-none-match"] != nil)
        #expect(try fx.accessLog(atLeast: 1) { $0["route"] as? String == "latest" && $0["status"] as? Int == 304 }.count == 1)
        #expect(fx.modelRequests(published.id).count == 1)

        let status = try fx.client(["--json", "status"])
        #expect(status.status == 0)
        let statusDoc = try fx.json(status)
        #expect(statusDoc["state"] as? String == "installed")
        #expect((statusDoc["active"] as? [String: Any])?["id"] as? String == published.id)
    }

    @Test func noModel_exitsZero_andEmptyCacheStatusIsNone_SPEC13() throws {
        let check = try fx.client(["--json", "check"])
        #expect(check.status == 0, "\(check.stderr)")
        #expect(try fx.json(check)["state"] as? String == "no_model")
        let status = try fx.client(["--json", "status"])
        let doc = try fx.json(status)
        #expect(doc["state"] as? String == "none" && doc["active"] is NSNull)
    }

    @Test func sigkillMidDownload_resumesFromCheckpoint_fetchingAtMostOneCheckpointTwice_SPEC13() throws {
        let size = 24 << 20 + 5
        let published = try fx.publish(size: size)
        fx.proxy.add(.init(pathContains: "/models/", fault: .throttle(bytesPerSecond: 6 << 20), times: 1))

        let process = try fx.startClient(["update"])
        let checkpoint = fx.cache.appendingPathComponent("channels/stable/partial/\(published.id).json")
        let sawCheckpoint = ModeldServer.eventually(within: 30) { FileManager.default.fileExists(atPath: checkpoint.path) }
        process.signal(SIGKILL)
        try process.wait(timeout: .seconds(10))
        try #require(sawCheckpoint, "no checkpoint within 30 s")

        let resumed = try fx.client(["--json", "update"])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(try fx.json(resumed)["state"] as? String == "updated")
        let second = try #require(fx.modelRequests(published.id).last)
        // Resumed from a recorded checkpoint (made at the first write boundary 2 s or 64 MiB after the last).
        let resumedAt = Int(second.headers["range"]?.dropFirst("bytes=".count).dropLast() ?? "") ?? 0
        #expect((4 << 20..<size).contains(resumedAt), "Range: \(second.headers["range"] ?? "none")")
        #expect(second.headers["if-range"] == "\"\(published.sha256)\"")

        let records = try fx.accessLog(atLeast: 2, where: ClientFixture.isModelFile)
        let served = records.compactMap { $0["bytes"] as? Int }.reduce(0, +)
        // Either order: the killed download's record is written when the server sees its end,
        // which on a loaded machine can be after the resumed one's.
        #expect(records.count == 2 && records.filter { $0["range"] as? Bool == true }.count == 1)
        // Fetched twice at most: one checkpoint interval (2 s at the proxy's 6 MiB/s, SPEC §13.2)
        // and what the sockets between server, proxy and client held (8 MiB).
        #expect(served <= size + 2 * (6 << 20) + 8 << 20, "served \(served) bytes for a \(size)-byte file")
        #expect(!FileManager.default.fileExists(atPath: checkpoint.path))
    }

    /// The real process is SIGKILLed right after each install step (the test-only hook
    /// MODELD_CLIENT_CRASH_AT): what it leaves on disk has the old model active until state.json
    /// names the new one, never a mix; the next run collects the leftovers and finishes.
    @Test func sigkillBetweenInstallSteps_leavesTheOldOrTheNewModelActive_andTheNextRunFinishes_SPEC13() throws {
        let first = try fx.publish(size: 10_000)
        let steps = ["downloaded", "staged", "committed", "activated"]
        func cache(_ step: String) -> URL { fx.scratch.appendingPathComponent("cache-\(step)") }
        for step in steps { try #require(try fx.client(["update"], cache: cache(step)).status == 0) }
        let second = try fx.publish(size: 20_000)

        for step in steps {
            let crashed = try ChildProcess.run(TestBinaries.modeldClient, fx.clientArguments(["update"], cache: cache(step)),
                                               environment: ["MODELD_CLIENT_CRASH_AT": step])
            #expect(crashed.status == -SIGKILL, "\(step): exit \(crashed.status) \(crashed.stderr)")

            let expected = step == "activated" ? second : first
            let status = try fx.json(try fx.client(["--json", "status"], cache: cache(step)))
            let active = try #require(status["active"] as? [String: Any], "\(step): \(status)")
            #expect(active["id"] as? String == expected.id, "after \(step)")
            #expect(try SHA256Sum.of(URL(fileURLWithPath: try #require(active["path"] as? String))) == expected.sha256, "after \(step)")

            let next = try fx.client(["--json", "update"], cache: cache(step))
            #expect(next.status == 0, "after \(step): \(next.stderr)")
            let installed = try #require(try fx.json(next)["active"] as? [String: Any])
            #expect(installed["id"] as? String == second.id, "after \(step)")
            #expect(try SHA256Sum.of(URL(fileURLWithPath: try #require(installed["path"] as? String))) == second.sha256)
            let models = try FileManager.default.contentsOfDirectory(atPath: cache(step).appendingPathComponent("channels/stable/models").path)
            #expect(models.sorted() == [first.id, second.id].sorted(), "after \(step): \(models)")  // old kept for rollback
            #expect(try FileManager.default.contentsOfDirectory(atPath: cache(step).appendingPathComponent("channels/stable/partial").path).isEmpty)
        }
        let bad = try ChildProcess.run(TestBinaries.modeldClient, fx.clientArguments(["status"]), environment: ["MODELD_CLIENT_CRASH_AT": "later"])
        #expect(bad.status == 2 && bad.stderr.contains("MODELD_CLIENT_CRASH_AT"), "\(bad.stderr)")
    }

    @Test func cutTransfer_resumesWithRange_andAnIgnoredRangeRestartsFromZero_SPEC13() throws {
        let size = 3 << 20 + 1
        let published = try fx.publish(size: size)
        fx.proxy.add(.init(pathContains: "/models/", fault: .cutAfter(1 << 20), times: 1))
        let cut = try fx.client(["update"])
        #expect(cut.status == 1 && cut.stderr.contains("network"), "\(cut.stderr)")
        // A cut (not a crash) checkpoints what arrived: the retry asks for the rest.
        let resumed = try fx.client(["--json", "update"])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(fx.modelRequests(published.id).last?.headers["range"] == "bytes=\(1 << 20)-")

        // Another install whose range is ignored upstream: a 200 to a range restarts from zero.
        let other = try fx.publish(size: size)
        fx.proxy.add(.init(pathContains: "/models/", fault: .cutAfter(1 << 20), times: 1))
        #expect(try fx.client(["update"]).status == 1)
        fx.proxy.add(.init(pathContains: "/models/", fault: .ignoreRange, times: 1))
        let restarted = try fx.client(["--json", "update"])
        #expect(restarted.status == 0, "\(restarted.stderr)")
        let active = try #require(try fx.json(restarted)["active"] as? [String: Any])
        #expect(active["id"] as? String == other.id)
        #expect(try SHA256Sum.of(URL(fileURLWithPath: try #require(active["path"] as? String))) == other.sha256)
        #expect(fx.modelRequests(other.id).last?.headers["range"] == "bytes=\(1 << 20)-")
        let served = try fx.accessLog(atLeast: 4, where: ClientFixture.isModelFile)
        #expect(served.last?["range"] as? Bool == false && served.last?["bytes"] as? Int == size)
    }

    @Test func flippedByte_isRejected_andTheCurrentModelStays_SPEC13() throws {
        let first = try fx.publish(size: 300_000)
        #expect(try fx.client(["update"]).status == 0)
        let second = try fx.publish(size: 2 << 20)
        fx.proxy.add(.init(pathContains: "/models/\(second.id)", fault: .flipByte(at: 1_234_567), times: 1))

        let bad = try fx.client(["--json", "update"])
        #expect(bad.status == 1)
        let doc = try fx.json(bad)
        #expect(doc["state"] as? String == "rejected")
        #expect((doc["reason"] as? String)?.contains("SHA-256") == true)
        #expect((doc["active"] as? [String: Any])?["id"] as? String == first.id)
        #expect(!FileManager.default.fileExists(atPath: fx.cache.appendingPathComponent("channels/stable/partial/\(second.id).part").path))

        // Without the fault the same release installs, from byte 0 (nothing unverified was kept).
        let good = try fx.client(["--json", "update"])
        #expect(good.status == 0, "\(good.stderr)")
        #expect((try fx.json(good)["active"] as? [String: Any])?["id"] as? String == second.id)
        #expect(fx.modelRequests(second.id).last?.headers["range"] == nil)
    }

    @Test func extraBytes_abortAtSizePlusOne_andNothingIsInstalled_SPEC13() throws {
        let published = try fx.publish(size: 100_000)
        fx.proxy.add(.init(pathContains: "/models/", fault: .extraBytes(50_000), times: 1))
        let result = try fx.client(["--json", "update"])
        #expect(result.status == 1)
        let doc = try fx.json(result)
        #expect(doc["state"] as? String == "rejected" && doc["active"] is NSNull)
        #expect((doc["reason"] as? String)?.contains("more than the 100000 bytes") == true)
        #expect(!FileManager.default.fileExists(atPath: fx.cache.appendingPathComponent("channels/stable/models/\(published.id)").path))
        #expect(try fx.json(try fx.client(["--json", "status"]))["state"] as? String == "none")
    }

    @Test func recordedEvents_surviveProcessesAndALostResponse_andExportExactlyOnce_SPEC13() throws {
        let published = try fx.publish(size: 1000)
        #expect(try fx.client(["update"]).status == 0)  // queues model_activated
        for i in 0..<3 {
            let r = try fx.client(["record", "--name", "upsell", "--outcome", "purchased", "--value", "\(i)"])
            #expect(r.status == 0, "\(r.stderr)")
        }
        // The server stores the batch, but its answer never arrives: the retry reuses the batch id.
        fx.proxy.add(.init(pathContains: "/events", fault: .dropResponse, times: 1))
        let lost = try fx.client(["flush"])
        #expect(lost.status == 1 && lost.stderr.contains("network"))
        let flushed = try fx.client(["flush"])
        #expect(flushed.status == 0, "\(flushed.stderr)")
        #expect(flushed.stdout.contains("sent 4 events, 0 quarantined, 0 still queued"))
        let posts = fx.proxy.seen.filter { $0.target.hasPrefix("/events") }
        #expect(posts.count == 2)

        let export = try ChildProcess.run(TestBinaries.modelctl, ["events", "export", "--data-dir", fx.server.dataDir.path])
        #expect(export.status == 0, "\(export.stderr)")
        let lines = export.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(lines.filter { $0["name"] as? String == "upsell" }.count == 3)
        #expect(lines.filter { $0["name"] as? String == "model_activated" && $0["model_id"] as? String == published.id }.count == 1)
        // Nothing queued: flush still exits 0.
        #expect(try fx.client(["flush"]).status == 0)
    }

    @Test func recordRepeat_queuesEveryCall_andSendsThemAll_orRefusesAZeroCount() throws {
        _ = try fx.publish(size: 1000)
        let recorded = try fx.client(["record", "--name", "load", "--repeat", "300"])
        #expect(recorded.status == 0, "\(recorded.stderr)")
        #expect(recorded.stdout.contains("queued (300 events pending); 300 record() calls took"), "\(recorded.stdout)")
        let flushed = try fx.client(["flush"])
        #expect(flushed.stdout.contains("sent 300 events, 0 quarantined, 0 still queued"), "\(flushed.stdout)")
        let refused = try fx.client(["record", "--name", "load", "--repeat", "0"])
        #expect(refused.status == 2 && refused.stderr.contains("--repeat must be 1-10000000, got 0"), "\(refused.stderr)")
    }

    @Test func aBatchTheServerRefuses_isQuarantined_andLaterEventsStillGo_SPEC13() throws {
        _ = try fx.publish(size: 1000)
        // A batch an older client wrote, invalid for the server (empty name).
        let events = fx.cache.appendingPathComponent("channels/stable/events")
        try FileManager.default.createDirectory(at: events, withIntermediateDirectories: true)
        try Data("{\"name\":\"\",\"ts\":1}\n".utf8).write(to: events.appendingPathComponent("0000000000000001_old-bad-batch.jsonl"))
        #expect(try fx.client(["record", "--name", "good"]).status == 0)

        let flushed = try fx.client(["flush"])
        #expect(flushed.status == 0, "\(flushed.stderr)")
        #expect(flushed.stdout.contains("sent 1 events, 1 quarantined, 0 still queued"))
        #expect(FileManager.default.fileExists(atPath: events.appendingPathComponent("quarantine/0000000000000001_old-bad-batch.jsonl").path))
        let export = try ChildProcess.run(TestBinaries.modelctl, ["events", "export", "--data-dir", fx.server.dataDir.path])
        #expect(export.stdout.contains("\"good\""))
    }

    @Test func simulate_postsOutcomesWithThePerModelProbability_andTheServerStoresThem_SPEC13() throws {
        let published = try fx.publish(size: 1000)
        let run = try fx.client(["--json", "simulate", "--clients", "20", "--duration", "2s", "--rate", "40",
                                 "--name", "upsell", "--outcome", "\(published.id)=1"])
        #expect(run.status == 0, "\(run.stderr)")
        let report = try fx.json(run)
        let checks = try #require(report["checks"] as? Int), events = try #require(report["events"] as? Int)
        // Every scheduled check is made, however loaded the machine (only `seconds` grows): 40/s
        // for 2 s, the last one due at 79/40 s.
        #expect(checks == 80, "\(report)")
        #expect(try #require(report["seconds"] as? Double) >= 79.0 / 40, "\(report)")
        #expect(events == checks - 20 && report["errors"] as? Int == 0)  // a client's first check has no model yet
        let model = try #require((report["models"] as? [String: Any])?[published.id] as? [String: Any])
        #expect(model["clients"] as? Int == 20 && model["successes"] as? Int == events)

        let export = try ChildProcess.run(TestBinaries.modelctl, ["events", "export", "--data-dir", fx.server.dataDir.path])
        let lines = export.stdout.split(separator: "\n").filter { $0.contains("\"upsell\"") && $0.contains("\"success\"") }
        #expect(lines.count == events)
        let bad = try fx.client(["simulate", "--clients", "0", "--duration", "1"])
        #expect(bad.status == 2 && bad.stderr.contains("--clients"))
    }

    /// Needs root for a small tmpfs as the cache (skipped otherwise).
    @Test(.enabled(if: getuid() == 0)) func fullDisk_isAClearError_andNothingIsHalfInstalled_SPEC13() throws {
        let cache = try fx.smallVolume(megabytes: 4)
        defer { fx.unmount(cache) }

        let small = try fx.publish(size: 1 << 20)
        #expect(try fx.client(["update"], cache: cache).status == 0)
        let big = try fx.publish(size: 3 << 20)  // 3 MiB + 10 % does not fit in what is left
        let full = try fx.client(["--json", "update"], cache: cache)
        #expect(full.status == 1 && full.stderr.contains("insufficient storage"), "\(full.stderr)")
        #expect(fx.modelRequests(big.id).isEmpty)
        let status = try fx.json(try fx.client(["--json", "status"], cache: cache))
        #expect((status["active"] as? [String: Any])?["id"] as? String == small.id)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: cache.appendingPathComponent("channels/stable/models").path)
        #expect(leftovers == [small.id])
    }

    @Test func usageErrors_exit2() throws {
        let missing = try ChildProcess.run(TestBinaries.modeldClient, ["--sdk", "2.3", "--cache", fx.cache.path, "check"])
        #expect(missing.status == 2 && missing.stderr.contains("--server"))
        let invalid = try ChildProcess.run(TestBinaries.modeldClient, ["--server", fx.proxy.url, "--sdk", "2.x", "--cache", fx.cache.path, "check"])
        #expect(invalid.status == 2 && invalid.stderr.contains("sdk version '2.x'"))
    }
}

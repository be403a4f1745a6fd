import Foundation
import Testing

/// `modeld-client update --progress`, `--max-bytes` and signals, through the real binary
/// against the real modeld (SPEC §13.1).
@Suite(.serialized) final class ClientProgressCLITests {
    let fx: ClientFixture
    init() throws { fx = try ClientFixture() }

    func stderrLines(_ text: String) -> [String] {
        text.split(separator: "\n").map(String.init).filter { !$0.contains("--trust-key") }
    }

    @Test func progress_printsOneLinePerPhase_andAtMostOneASecondWhileDownloading() throws {
        let published = try fx.publish(size: 12 << 20)
        fx.proxy.add(.init(pathContains: "/models/", fault: .throttle(bytesPerSecond: 4 << 20), times: 1))  // ~3 s
        let start = Date()
        let run = try fx.client(["update", "--progress"])
        let seconds = Date().timeIntervalSince(start)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains(published.id))
        let lines = stderrLines(run.stderr)
        let names = lines.map { String($0.split(separator: " ").first ?? "") }
        #expect(names.reduce(into: [String]()) { if $0.last != $1 { $0.append($1) } }
                == ["checking", "downloading", "verifying", "preparing", "installed"], "\(lines)")
        let downloading = names.filter { $0 == "downloading" }.count
        #expect(downloading >= 2 && Double(downloading) <= seconds + 1, "\(downloading) lines in \(seconds) s")
    }

    @Test func progressWithJSON_printsJSONLinesOfPhaseBytesAndTotal() throws {
        let size = 6 << 20
        _ = try fx.publish(size: size)
        let run = try fx.client(["--json", "update", "--progress"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try fx.json(run)["state"] as? String == "updated")
        let objects = try stderrLines(run.stderr).map { line in
            try #require(try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not JSON: \(line)")
        }
        #expect(objects.allSatisfy { Set($0.keys) == ["phase", "bytes", "total"] })
        #expect(objects.first?["phase"] as? String == "checking" && objects.last?["phase"] as? String == "installed")
        let downloading = objects.filter { $0["phase"] as? String == "downloading" }
        #expect(!downloading.isEmpty && downloading.allSatisfy { $0["total"] as? Int == size })
        #expect(objects.first?["bytes"] is NSNull)
    }

    static let signals: [(Int32, Int32)] = [(SIGINT, 130), (SIGTERM, 143)]

    @Test(arguments: signals)
    func aSignalDuringUpdate_exitsWith128PlusIt_keepsThePartial_andTheNextUpdateResumes(signal: Int32, exitCode: Int32) throws {
        let size = 16 << 20
        let published = try fx.publish(size: size)
        fx.proxy.add(.init(pathContains: "/models/", fault: .throttle(bytesPerSecond: 2 << 20), times: 1))
        let process = try fx.startClient(["update"])
        let part = fx.cache.appendingPathComponent("channels/stable/partial/\(published.id).part").path
        func partSize() -> Int { ((try? FileManager.default.attributesOfItem(atPath: part))?[.size] as? Int) ?? 0 }
        let started = ModeldServer.eventually(within: 30) { partSize() >= 5 << 20 }
        process.signal(signal)
        let stopped = try? process.wait(timeout: .seconds(5))
        try #require(started, "no 5 MiB within 30 s")
        #expect(stopped != nil, "still running 5 s after the signal")
        #expect(stopped?.status == exitCode)
        let kept = partSize()
        #expect(kept >= 5 << 20 && kept < size)

        let resumed = try fx.client(["--json", "update"])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(try fx.json(resumed)["state"] as? String == "updated")
        // The next run asks for exactly what the interrupted one did not keep, and gets only that.
        #expect(fx.modelRequests(published.id).last?.headers["range"] == "bytes=\(kept)-")
        let served = try fx.accessLog(atLeast: 2, where: ClientFixture.isModelFile)
        // (Log order is completion order: the interrupted transfer may be logged after the resumed one.)
        let resumedRecord = served.first { $0["range"] as? Bool == true }
        #expect(resumedRecord?["bytes"] as? Int == size - kept)
    }

    @Test func maxBytes_leavesALargerReleaseAvailable_andRefusesANegativeLimit() throws {
        let published = try fx.publish(size: 50_000)
        let small = try fx.client(["--json", "--max-bytes", "49999", "update"])
        #expect(small.status == 0, "\(small.stderr)")
        let state = try fx.json(small)
        #expect(state["state"] as? String == "available" && state["active"] is NSNull)
        #expect(fx.modelRequests(published.id).isEmpty)

        let fits = try fx.client(["--json", "--max-bytes", "50000", "update"])
        #expect(try fx.json(fits)["state"] as? String == "updated")

        let bad = try fx.client(["--max-bytes", "-1", "update"])
        #expect(bad.status == 2 && bad.stderr.contains("--max-bytes"), "\(bad.stderr)")
    }
}

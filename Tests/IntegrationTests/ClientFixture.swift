import ChildProcesses
import Foundation
import ModeldClient
import Testing

/// A real modeld behind a `FaultProxy`, with `public_base_url` pointing at the proxy so update
/// checks *and* downloads pass through it; helpers to publish, run `modeld-client` and read the
/// server's access log.
final class ClientFixture {
    let proxy: FaultProxy
    let server: ModeldServer
    let scratch: URL

    /// - Parameter publicBaseURL: where the answers' `url`s point (default: the proxy).
    /// - Parameter environment: extra `MODELD_*` settings (e.g. signing keys).
    init(publicBaseURL: String? = nil, environment: [String: String] = [:]) throws {
        proxy = try FaultProxy()
        server = try ModeldServer(extraArguments: ["--public-base-url", publicBaseURL ?? proxy.url], environment: environment, empty: true)
        proxy.upstreamPort = server.port
        scratch = server.root.appendingPathComponent("scratch")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }

    deinit { proxy.stop() }

    var cache: URL { scratch.appendingPathComponent("cache") }

    /// Publishes `size` random bytes through the admin API; returns (id, sha256, file).
    func publish(size: Int, sdkMin: String = "2.0", ext: String = "bin", channel: String? = nil) throws -> (id: String, sha256: String, file: URL) {
        let file = scratch.appendingPathComponent("\(UUID().uuidString.prefix(8)).\(ext)")
        let random = try #require(FileHandle(forReadingAtPath: "/dev/urandom"))
        try (random.read(upToCount: size) ?? Data()).write(to: file)
        return try publish(file: file, sdkMin: sdkMin, channel: channel)
    }

    /// Publishes `file` as it is.
    func publish(file: URL, sdkMin: String = "2.0", channel: String? = nil) throws -> (id: String, sha256: String, file: URL) {
        let r = try ChildProcess.run(TestBinaries.modelctl, ["publish", file.path, "--sdk-min", sdkMin, "--json",
                                                             "--server", server.url, "--token", server.token]
                                                            + (channel.map { ["--channel", $0] } ?? []))
        try #require(r.status == 0, "modelctl publish failed: \(r.stderr)")
        let release = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        return (try #require(release["id"] as? String), try #require(release["sha256"] as? String), file)
    }

    /// A fresh tmpfs of `megabytes` under the scratch directory, for a cache whose disk fills
    /// (needs root); `unmount` it when done.
    func smallVolume(megabytes: Int) throws -> URL {
        let dir = scratch.appendingPathComponent("small-cache")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let mount = try ChildProcess.run(URL(fileURLWithPath: "/bin/mount"), ["-t", "tmpfs", "-o", "size=\(megabytes)m", "tmpfs", dir.path])
        try #require(mount.status == 0, "mount: \(mount.stderr)")
        return dir
    }

    func unmount(_ volume: URL) { _ = try? ChildProcess.run(URL(fileURLWithPath: "/bin/umount"), [volume.path]) }

    /// `modeld-client --server PROXY --sdk 2.3 --cache CACHE ARGS`.
    func client(_ arguments: [String], cache: URL? = nil, timeout: Duration = .seconds(120)) throws -> ProcessResult {
        try ChildProcess.run(TestBinaries.modeldClient, clientArguments(arguments, cache: cache), timeout: timeout)
    }

    /// Starts `modeld-client` with `arguments` in the background, for a test that kills or
    /// signals it mid-run.
    func startClient(_ arguments: [String]) throws -> ChildProcess.Running {
        try ChildProcess.start(TestBinaries.modeldClient, clientArguments(arguments))
    }

    /// `unconfirmed_launches` of the stable channel's `state.json` (the crash-loop rule's count).
    func unconfirmedLaunches() -> Int {
        let state = cache.appendingPathComponent("channels/stable/state.json")
        return ((try? JSONSerialization.jsonObject(with: Data(contentsOf: state))) as? [String: Any])?["unconfirmed_launches"] as? Int ?? 0
    }

    /// An app process (`modeld-client launch --hold`) that has loaded the active model: returns
    /// once the launch is counted (`count` launches in all), for the test to SIGKILL (a crash) or
    /// SIGTERM (a clean end).
    func launchedApp(counted count: Int) throws -> ChildProcess.Running {
        let app = try startClient(["launch", "--hold"])
        let deadline = Date().addingTimeInterval(20)
        while app.isRunning, unconfirmedLaunches() < count {
            try #require(Date() < deadline, "the launch was not counted within 20 s")
            usleep(10_000)
        }
        return app
    }

    /// An integer field of a JSON record in the stable channel's `partial/` (a checkpoint's
    /// `offset`, a delta's `fetched`); 0 while there is none.
    func partialRecord(_ name: String, _ field: String) -> Int {
        let url = cache.appendingPathComponent("channels/stable/partial/\(name)")
        return ((try? JSONSerialization.jsonObject(with: Data(contentsOf: url))) as? [String: Any])?[field] as? Int ?? 0
    }

    /// SPEC §13.2's stall rule from outside: waits for the proxy's `stallAfter` stall (60 s at
    /// most), then until the stall is 2.5 s old and `checkpointed()` holds (15 s at most: the rule
    /// is due 2–3 s in), and SIGKILLs `process` (an app killed on a train).
    func killDuringStall(_ process: ChildProcess.Running, once checkpointed: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(60)
        while proxy.stalledAt == nil {
            try #require(Date() < deadline && process.isRunning, "the download did not reach the stall within 60 s")
            usleep(20_000)
        }
        let stalledAt = try #require(proxy.stalledAt)
        while Date().timeIntervalSince(stalledAt) < 2.5 || !checkpointed() {
            try #require(Date().timeIntervalSince(stalledAt) < 15 && process.isRunning, "no checkpoint 15 s into the stall")
            usleep(20_000)
        }
        process.signal(SIGKILL)
        #expect(try process.wait(timeout: .seconds(30)).status == -SIGKILL)
    }

    func clientArguments(_ arguments: [String], cache: URL? = nil) -> [String] {
        ["--server", proxy.url, "--sdk", "2.3", "--cache", (cache ?? self.cache).path] + arguments
    }

    /// `--json` output of a `modeld-client` run.
    func json(_ result: ProcessResult) throws -> [String: Any] {
        try #require((try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8))) as? [String: Any],
                     "not JSON: \(result.stdout) / \(result.stderr)")
    }

    /// The access log's records (SPEC §6), waiting until at least `count` match `filter`.
    func accessLog(atLeast count: Int = 0, where filter: ([String: Any]) -> Bool = { _ in true }) throws -> [[String: Any]] {
        var records: [[String: Any]] = []
        _ = ModeldServer.eventually(within: 10) {
            let files = (try? FileManager.default.contentsOfDirectory(atPath: server.dataDir.path))?.filter { $0.hasPrefix("access-") } ?? []
            records = files.flatMap { name -> [[String: Any]] in
                let text = (try? String(contentsOf: server.dataDir.appendingPathComponent(name), encoding: .utf8)) ?? ""
                return text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            }.filter(filter)
            return records.count >= count
        }
        return records
    }

    /// The queued (not yet sent) `model_activated` events' props of the stable channel in
    /// `cache` (default: the fixture's), newest last.
    func activationProps(cache: URL? = nil) throws -> [[String: Any]] {
        let dir = (cache ?? self.cache).appendingPathComponent("channels/stable/events")
        let files = (FileManager.default.enumerator(atPath: dir.path)?.allObjects as? [String] ?? []).filter { $0.hasSuffix(".jsonl") }.sorted()
        return try files.flatMap { name in
            try String(contentsOf: dir.appendingPathComponent(name), encoding: .utf8).split(separator: "\n")
                .compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        }.filter { $0["name"] as? String == "model_activated" }.compactMap { $0["props"] as? [String: Any] }
    }

    /// Requests for release `id`'s file (not its `.chunks` list).
    /// An access-log record of a model file's bytes (not of its `.chunks` list, SPEC §14).
    static func isModelFile(_ record: [String: Any]) -> Bool {
        record["route"] as? String == "models" && !(record["path"] as? String ?? "").hasSuffix(".chunks")
    }

    func modelRequests(_ id: String) -> [FaultProxy.Seen] {
        proxy.seen.filter { $0.target.hasPrefix("/models/\(id)") && !$0.target.hasSuffix(".chunks") }
    }
    var latestRequests: [FaultProxy.Seen] { proxy.seen.filter { $0.target.hasPrefix("/latest") } }
}

extension ModeldConfiguration {
    /// This configuration accepting unsigned answers: the fixture's server signs nothing.
    func allowingUnsigned() -> ModeldConfiguration {
        var configuration = self
        configuration.allowUnsigned = true
        return configuration
    }
}

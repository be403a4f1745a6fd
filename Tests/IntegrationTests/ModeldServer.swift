import ChildProcesses
import Foundation
import Synchronization

/// The real `modeld` binary as a child process on an ephemeral loopback port, with its own
/// temporary models/ and data/ directories (the shipped demo model copied in unless `empty`).
/// The port comes from the start-up log line, not from a guess; every wait is bounded.
final class ModeldServer {
    let root: URL
    let modelsDir: URL
    let dataDir: URL
    let logFile: URL
    let token = "test-token-0123456789abcdef"
    private(set) var port = 0
    private(set) var process: ChildProcess.Running
    let arguments: [String]
    private var environment: [String: String]
    /// A command modeld runs under (its path and flags follow it), e.g. one that mounts the
    /// models directory read-only; empty: modeld itself.
    private let launcher: [String]

    var url: String { "http://127.0.0.1:\(port)" }
    var pid: Int32 { process.pid }

    /// - Parameters:
    ///   - extraArguments: appended flags (e.g. `--instance-id b`).
    ///   - environment: extra `MODELD_*` settings (the developer's own are stripped).
    ///   - root: share a directory with another replica; default a fresh temporary one.
    ///   - launcher: a command to run modeld under (see `launcher`).
    init(extraArguments: [String] = [], environment: [String: String] = [:], root: URL? = nil,
         models: URL? = nil, empty: Bool = false, launcher: [String] = []) throws {
        let fm = FileManager.default
        self.root = root ?? fm.temporaryDirectory.appendingPathComponent("modeld-it-\(UUID().uuidString)")
        modelsDir = models ?? self.root.appendingPathComponent("models")
        dataDir = self.root.appendingPathComponent("data")
        logFile = self.root.appendingPathComponent("modeld-\(UUID().uuidString.prefix(8)).log")
        try fm.createDirectory(at: self.root, withIntermediateDirectories: true)
        if !fm.fileExists(atPath: modelsDir.path) {
            if empty {
                try fm.createDirectory(at: modelsDir, withIntermediateDirectories: true)
            } else {
                try fm.copyItem(at: Self.repositoryRoot.appendingPathComponent("models"), to: modelsDir)
            }
        }
        arguments = ["--config", Self.repositoryRoot.appendingPathComponent("config/modeld.json").path,
                     "--listen", "127.0.0.1:0", "--models-dir", modelsDir.path, "--data-dir", dataDir.path,
                     "--public-base-url", "http://models.example.test"] + extraArguments
        self.environment = ["MODELD_ADMIN_TOKEN": token, "MODELD_INSTANCE_ID": "it-\(UUID().uuidString.prefix(8))"]
            // Deriving packs (SPEC §16) changes the catalog after a publish: on only where a test
            // asks (`MODELD_PACK_AT_PUBLISH`); the other writer duties stay on (SPEC §16.1).
            .merging(environment["MODELD_PACK_AT_PUBLISH"] == nil ? ["MODELD_TEST_DERIVE_OFF": "1"] : [:]) { old, _ in old }
            .merging(environment) { _, new in new }
        self.launcher = launcher
        _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
        process = try Self.launch(launcher, arguments, environment: self.environment, directory: self.root, log: logFile)
        port = try waitForPort(within: 20)
    }

    private static func launch(_ launcher: [String], _ arguments: [String], environment: [String: String], directory: URL, log: URL) throws -> ChildProcess.Running {
        guard let command = launcher.first else {
            return try ChildProcess.start(TestBinaries.modeld, arguments, environment: environment, directory: directory, log: log)
        }
        return try ChildProcess.start(command, Array(launcher.dropFirst()) + [TestBinaries.modeld.path] + arguments,
                                      environment: environment, directory: directory.path, log: log.path)
    }

    /// Starts the same server again (same directories and flags), e.g. after a SIGKILL.
    func restart(environment: [String: String] = [:]) throws {
        self.environment.merge(environment) { _, new in new }
        _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
        process = try Self.launch(launcher, arguments, environment: self.environment, directory: root, log: logFile)
        port = try waitForPort(within: 20)
    }

    deinit {
        process.signal(SIGKILL)
        _ = try? process.wait(timeout: .seconds(10))  // SIGKILLed: it cannot outlive the wait
        try? FileManager.default.removeItem(at: root)
    }

    /// The log so far (start-up line, warnings, errors).
    var log: String { (try? String(contentsOf: logFile, encoding: .utf8)) ?? "" }

    func signal(_ sig: Int32) { process.signal(sig) }

    /// Waits for the process to exit (bounded) and returns its status, or nil on time-out.
    @discardableResult
    func waitForExit(within seconds: Double) -> Int32? {
        try? process.wait(timeout: .seconds(seconds)).status
    }

    /// SIGKILLs the server and waits for its exit; returns how long it took to die. A killed
    /// process exits once each of its threads has left the kernel: under a CI machine's I/O load
    /// one outlived 10 s (the crash loop, 2026-12-02), so the bound is a minute and a time-out
    /// names the threads' kernel states.
    @discardableResult
    func kill(within seconds: Double = 60) throws -> Duration {
        let start = ContinuousClock.now
        process.signal(SIGKILL)
        try process.wait(timeout: .seconds(seconds))
        return ContinuousClock.now - start
    }

    /// Polls `condition` every 20 ms until it holds or `seconds` pass.
    static func eventually(within seconds: Double, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        repeat {
            if try condition() { return true }
            usleep(20_000)
        } while Date() < deadline
        return false
    }

    private func waitForPort(within seconds: Double) throws -> Int {
        var found = 0
        let ok = Self.eventually(within: seconds) {
            if !process.isRunning { return true }
            if let r = log.range(of: #"listening on http://127\.0\.0\.1:(\d+)"#, options: .regularExpression) {
                found = Int(log[r].split(separator: ":").last!) ?? 0
                return true
            }
            return false
        }
        guard ok, found > 0 else {
            throw ChildProcessError.timedOut("modeld did not report its port; log:\n\(log)")
        }
        return found
    }

    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
}

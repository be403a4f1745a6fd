import ChildProcesses
import Foundation
import Glibc
import Testing

/// SPEC §8 configuration, through the real `modeld` binary: layering, validation (exit 2 naming
/// the key), the start-up line, and the admin token file created on first start.
@Suite(.serialized) final class OperationsConfigurationTests {
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("modeld-ops-config-\(UUID().uuidString)")

    init() throws { try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true) }
    deinit { try? FileManager.default.removeItem(at: scratch) }

    private func write(_ name: String, _ text: String) throws -> URL {
        let url = scratch.appendingPathComponent(name)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    /// Runs modeld expecting it to exit by itself (a configuration error) within 20 s.
    private func modeld(_ arguments: [String], environment: [String: String] = [:]) throws -> ProcessResult {
        try ChildProcess.run(TestBinaries.modeld, arguments, environment: environment, directory: scratch, timeout: .seconds(20))
    }

    /// Flags that keep the process away from the repository's directories and any fixed port.
    private var safeFlags: [String] {
        ["--listen", "127.0.0.1:0", "--models-dir", scratch.appendingPathComponent("models").path,
         "--data-dir", scratch.appendingPathComponent("data").path]
    }

    @Test func unknownKeyInConfigFile_exits2NamingTheKey_SPEC8() throws {
        let config = try write("modeld.json", #"{"listen": "127.0.0.1:0", "drain_secs": 3}"#)
        let result = try modeld(["--config", config.path] + safeFlags)
        #expect(result.status == 2)
        #expect(result.stderr.contains("drain_secs"), "\(result.stderr)")
        #expect(!result.stderr.contains("listening on"))
    }

    @Test func unknownKeyInsideLimits_exits2NamingTheKey_SPEC8() throws {
        let config = try write("modeld.json", #"{"limits": {"max_conections": 5}}"#)
        let result = try modeld(["--config", config.path] + safeFlags)
        #expect(result.status == 2)
        #expect(result.stderr.contains("max_conections"), "\(result.stderr)")
    }

    @Test func badEnvironmentValue_exits2NamingTheVariable_SPEC8() throws {
        let result = try modeld(safeFlags, environment: ["MODELD_LIMITS_MAX_CONNECTIONS": "abc"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("MODELD_LIMITS_MAX_CONNECTIONS"), "\(result.stderr)")
    }

    @Test func badValueInConfigFile_exits2NamingTheKey_SPEC8() throws {
        let config = try write("modeld.json", #"{"drain_seconds": "soon"}"#)
        let result = try modeld(["--config", config.path] + safeFlags)
        #expect(result.status == 2)
        #expect(result.stderr.contains("drain_seconds"), "\(result.stderr)")
    }

    @Test(arguments: [["--bogus", "1"], ["--port"], ["--workers", "many"], ["stray"]])
    func unknownOrBadFlag_exits2_SPEC8(_ extra: [String]) throws {
        let result = try modeld(safeFlags + extra)
        #expect(result.status == 2, "\(extra): \(result.stderr)")
        #expect(result.stderr.contains(extra[0]), "\(result.stderr)")
    }

    @Test func otherModeldVariablesAreIgnored_SPEC8() throws {
        // modelctl's MODELD_SERVER is not a server key: the server must start regardless.
        let server = try ModeldServer(environment: ["MODELD_SERVER": "http://elsewhere:1", "MODELD_TOKEN_FOR_SOMETHING": "x"])
        #expect(try HTTP.get(server.port, "/healthz").status == 200)
    }

    @Test func portFlag_replacesOnlyThePortOfListen_SPEC8() throws {
        // The file says 127.0.0.1:1 (a host the default 0.0.0.0 would not give); --port 0 keeps that host.
        let config = try write("modeld.json", #"{"listen": "127.0.0.1:1"}"#)
        let log = scratch.appendingPathComponent("port.log")
        let process = try Self.launch([
            "--config", config.path, "--port", "0", "--models-dir", scratch.appendingPathComponent("models").path,
            "--data-dir", scratch.appendingPathComponent("data").path, "--public-base-url", "http://x.test",
        ], log: log, directory: scratch)
        defer { Self.stop(process) }
        let line = try Self.waitForStartupLine(log, process)
        let match = try #require(line.firstMatch(of: #/listening on http://([0-9.]+):(\d+)/#))
        #expect(match.1 == "127.0.0.1", "host kept from the file: \(line)")
        #expect(Int(match.2)! > 1, "port replaced by --port: \(line)")
        #expect(line.contains("flag --port"), "\(line)")
    }

    @Test func startupLine_namesAddressReleaseCountAndConfigSource_SPEC8() throws {
        let server = try ModeldServer()
        let line = try #require(server.log.split(separator: "\n").first { $0.contains("listening on") })
        #expect(line.contains("http://127.0.0.1:\(server.port)"))
        #expect(line.contains("1 release"), "the shipped demo model: \(line)")
        #expect(line.contains("config/modeld.json"), "\(line)")
        #expect(line.contains("flag --listen"), "\(line)")
        #expect(line.contains("env MODELD_ADMIN_TOKEN"), "\(line)")
    }

    @Test func startupLine_emptyModelsDirIsAnEmptyCatalog_SPEC8() throws {
        let server = try ModeldServer(empty: true)
        #expect(server.log.contains("with 0 release"), "\(server.log)")
        #expect(try HTTP.get(server.port, "/latest?sdk=2.3").status == 404)
    }

    @Test func missingAdminTokenFile_isCreatedMode0600_tokenNeverLogged_SPEC8() throws {
        let tokenFile = scratch.appendingPathComponent("data/admin.token")
        let config = try write("modeld.json", """
            {"listen": "127.0.0.1:0", "admin_token_file": "\(tokenFile.path)", "public_base_url": "http://x.test"}
            """)
        let log = scratch.appendingPathComponent("token.log")
        let process = try Self.launch([
            "--config", config.path, "--models-dir", scratch.appendingPathComponent("models").path,
            "--data-dir", scratch.appendingPathComponent("data").path,
        ], log: log, directory: scratch)
        defer { Self.stop(process) }
        let line = try Self.waitForStartupLine(log, process)
        let port = try #require(line.firstMatch(of: #/:(\d+) with/#).map { Int($0.1)! })

        var info = stat()
        #expect(stat(tokenFile.path, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600, "mode \(String(info.st_mode & 0o777, radix: 8))")
        let token = try String(contentsOf: tokenFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(token.count >= 32, "a random token of some length")
        let text = try String(contentsOf: log, encoding: .utf8)
        #expect(text.contains(tokenFile.path), "its path is logged")
        #expect(!text.contains(token), "the token is never logged")

        // The created token opens the admin API; another one does not.
        let good = try HTTP.get(port, "/admin/models", headers: [("Authorization", "Bearer \(token)")])
        let bad = try HTTP.get(port, "/admin/models", headers: [("Authorization", "Bearer nope")])
        #expect(bad.status == 401)
        #expect(good.status != 401 && good.status != 404, "status \(good.status)")
    }

    // MARK: - A modeld whose arguments and environment are entirely the test's

    static func launch(_ arguments: [String], environment: [String: String] = [:], log: URL, directory: URL) throws -> ChildProcess.Running {
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        return try ChildProcess.start(TestBinaries.modeld, arguments, environment: environment, directory: directory, log: log)
    }

    static func stop(_ p: ChildProcess.Running) {
        p.signal(SIGKILL)
        _ = try? p.wait(timeout: .seconds(10))  // SIGKILLed: it cannot outlive the wait
    }

    static func waitForStartupLine(_ log: URL, _ p: ChildProcess.Running) throws -> String {
        var line: Substring?
        _ = ModeldServer.eventually(within: 20) {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            line = text.split(separator: "\n").first { $0.contains("listening on") }
            return line != nil || !p.isRunning
        }
        guard let line else {
            throw ChildProcessError.timedOut("no start-up line: \((try? String(contentsOf: log, encoding: .utf8)) ?? "")")
        }
        return String(line)
    }
}

import ChildProcesses
import Foundation
import Testing

/// modelctl's server-facing commands (SPEC §7, §7.1) run as the real binary against a fake
/// admin server that reports how each request arrived.
@Suite final class ModelctlClientTests {
    static let token = "t0ken-for-tests"
    /// One scratch directory per test (Swift Testing makes a suite instance per test).
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("modelctl-\(UUID().uuidString)")

    init() throws { try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true) }
    deinit { try? FileManager.default.removeItem(at: scratch) }

    private func modelctl(_ arguments: [String], environment: [String: String] = [:], directory: URL? = nil) throws -> ProcessResult {
        try ChildProcess.run(TestBinaries.modelctl, arguments, environment: environment, directory: directory)
    }

    private func json(_ text: String) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    /// A file of `size` random bytes named `name` in the scratch directory.
    private func modelFile(_ name: String = "weights.mlmodelc.zip", size: Int = 3 << 20 + 17) throws -> URL {
        let random = try #require(FileHandle(forReadingAtPath: "/dev/urandom"))
        let file = scratch.appendingPathComponent(name)
        try (random.read(upToCount: size) ?? Data()).write(to: file)
        return file
    }

    /// The independent oracle: coreutils' sha256sum.
    private func sha256sum(_ file: URL) throws -> String {
        let result = try ChildProcess.run(URL(fileURLWithPath: "/usr/bin/sha256sum"), [file.path])
        return String(result.stdout.prefix(64))
    }

    private func publish(_ server: FakeAdminServer, _ file: URL, _ extra: [String] = []) throws -> [String: Any] {
        let result = try modelctl(["publish", file.path, "--sdk-min", "2.3", "--server", server.url, "--token", Self.token, "--json"] + extra)
        #expect(result.status == 0, "\(result.stderr)")
        return try json(result.stdout)
    }

    /// Sizes around libcurl's 1 MiB upload buffer, and the empty file (a lone last-chunk + trailer).
    @Test(arguments: [0, 1, 1 << 20, 3 << 20 + 17])
    func publish_streamsFileOnceChunkedWithSHA256Trailer_SPEC7_1(size: Int) throws {
        let server = try FakeAdminServer(token: Self.token)
        let file = try modelFile(size: size)
        let label = "v2 & more=yes größe ✓"
        let release = try publish(server, file, ["--sdk-max", "3.0", "--channel", "beta", "--rollout", "40", "--label", label])
        let expected = try sha256sum(file)
        let received = try #require(release["received"] as? [String: Any])

        #expect(received["chunked"] as? Bool == true)
        #expect((received["trailers"] as? [String: String])?["x-model-sha256"] == expected)
        #expect(release["sha256"] as? String == expected, "the body the server hashed is the file")
        #expect(release["size"] as? Int == size)
        #expect(received["authorization"] as? String == "Bearer \(Self.token)")
        #expect(received["expect"] as? String == "100-continue")
        #expect(received["query"] as? [String: String] == [
            "sdk_min": "2.3", "sdk_max": "3.0", "channel": "beta", "rollout": "40", "label": label, "ext": "mlmodelc.zip",
        ])
    }

    @Test func publish_printsReleaseWithURL_SPEC7_1() throws {
        let server = try FakeAdminServer(token: Self.token)
        let result = try modelctl(["publish", try modelFile("tiny.gguf", size: 5).path, "--sdk-min", "1", "--server", server.url, "--token", Self.token])
        #expect(result.status == 0, "\(result.stderr)")
        let url = try #require(result.stdout.split(separator: "\n").first { $0.hasPrefix("url:") })
        #expect(url.hasSuffix(".gguf") && url.contains("http://cdn.example/models/"))
    }

    @Test func publish_missingFile_exits1NamingIt() throws {
        let server = try FakeAdminServer(token: Self.token)
        let result = try modelctl(["publish", "/nonexistent/model.onnx", "--sdk-min", "1", "--server", server.url, "--token", Self.token])
        #expect(result.status == 1)
        #expect(result.stderr == "modelctl: cannot read /nonexistent/model.onnx: No such file or directory\n")
    }

    @Test func adminCommands_patchAndDeleteTheRelease_SPEC7_1() throws {
        let server = try FakeAdminServer(token: Self.token)
        let id = try #require(try publish(server, try modelFile(size: 10))["id"] as? String)
        let common = ["--server", server.url, "--token", Self.token, "--json"]
        let steps: [([String], String, Any)] = [
            (["rollout", id, "25"], "rollout_percent", 25), (["pause", id], "state", "paused"),
            (["resume", id], "state", "active"), (["retire", id], "state", "retired"),
            (["show", id], "state", "retired"),
        ]
        for (arguments, key, value) in steps {
            let result = try modelctl(arguments + common)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            #expect("\(try json(result.stdout)[key] ?? "missing")" == "\(value)", "\(arguments)")
        }
        let list = try modelctl(["list", "--server", server.url, "--token", Self.token])
        #expect(list.stdout.split(separator: "\n").first?.hasPrefix("ID ") == true)
        #expect(list.stdout.contains(id) && list.stdout.contains("retired"))
    }

    @Test func serverErrorJSON_exits1WithStatusCodeAndMessage_SPEC10() throws {
        let server = try FakeAdminServer(token: Self.token)
        let id = try #require(try publish(server, try modelFile(size: 10))["id"] as? String)
        let retired = try modelctl(["retire", id, "--server", server.url, "--token", Self.token])
        #expect(retired.status == 0)
        let again = try modelctl(["pause", id, "--server", server.url, "--token", Self.token])
        #expect(again.status == 1)
        #expect(again.stderr == "modelctl: 409 retired: a retired release cannot change\n")
    }

    @Test(arguments: [["list"], ["publish", "PLACEHOLDER", "--sdk-min", "1"]])
    func wrongToken_exits1WithUnauthorized_SPEC7_1(command: [String]) throws {
        let server = try FakeAdminServer(token: Self.token)
        let file = try modelFile(size: 2 << 20).path
        let arguments = command.map { $0 == "PLACEHOLDER" ? file : $0 } + ["--server", server.url, "--token", "wrong"]
        let result = try modelctl(arguments)
        #expect(result.status == 1)
        #expect(result.stderr == "modelctl: 401 unauthorized: missing or wrong admin token\n")
    }

    @Test func token_fromFileEnvironmentAndDefaultFile_SPEC7() throws {
        let server = try FakeAdminServer(token: Self.token)
        try FileManager.default.createDirectory(at: scratch.appendingPathComponent("data"), withIntermediateDirectories: true)
        let tokenFile = scratch.appendingPathComponent("data/admin.token").path
        try Data("\(Self.token)\n".utf8).write(to: URL(fileURLWithPath: tokenFile))

        let viaFile = try modelctl(["list", "--server", server.url, "--token-file", tokenFile])
        let viaEnvironment = try modelctl(["list"], environment: ["MODELD_SERVER": server.url, "MODELD_ADMIN_TOKEN": Self.token])
        let viaDefaultFile = try modelctl(["list", "--server", server.url], directory: scratch)
        for result in [viaFile, viaEnvironment, viaDefaultFile] { #expect(result.status == 0, "\(result.stderr)") }

        // From a directory without data/admin.token, so the default file cannot be found.
        let elsewhere = scratch.appendingPathComponent("elsewhere")
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        let none = try modelctl(["list", "--server", server.url], directory: elsewhere)
        #expect(none.status == 1)
        #expect(none.stderr.hasPrefix("modelctl: no admin token"))
    }

    /// SPEC §7: with no --token/--token-file/MODELD_ADMIN_TOKEN, the token file the shipped config
    /// names (`admin_token_file`, relative to the working directory as modeld resolves it), and
    /// only then data/admin.token.
    @Test func token_fromConfigAdminTokenFileBeforeDefaultFile_SPEC7() throws {
        let server = try FakeAdminServer(token: Self.token)
        let work = scratch.appendingPathComponent("work")
        for sub in ["config", "data", "secrets"] {
            try FileManager.default.createDirectory(at: work.appendingPathComponent(sub), withIntermediateDirectories: true)
        }
        try Data("stale-default-token\n".utf8).write(to: work.appendingPathComponent("data/admin.token"))
        try Data("  \(Self.token)\n".utf8).write(to: work.appendingPathComponent("secrets/admin.token"))
        let config = work.appendingPathComponent("config/modeld.json")
        func writeConfig(_ text: String) throws { try Data(text.utf8).write(to: config) }
        func list(_ environment: [String: String] = [:]) throws -> ProcessResult {
            try modelctl(["list", "--server", server.url], environment: environment, directory: work)
        }

        try writeConfig(#"{"listen":"0.0.0.0:8080","admin_token_file":"secrets/admin.token"}"#)
        let viaConfig = try list()
        #expect(viaConfig.status == 0, "the config's file wins over data/admin.token: \(viaConfig.stderr)")
        #expect(try list(["MODELD_ADMIN_TOKEN": "wrong"]).status == 1, "the environment still beats the config")

        try writeConfig(#"{"admin_token":"\#(Self.token)"}"#)
        #expect(try list().status == 0, "an inline admin_token is the same setting")

        try writeConfig(#"{"admin_token_file":"secrets/missing.token"}"#)
        let missing = try list()
        #expect(missing.status == 1)
        #expect(missing.stderr.hasPrefix("modelctl: cannot read admin_token_file secrets/missing.token in config/modeld.json: "), "\(missing.stderr)")

        try writeConfig(#"{"admin_token_fil":"secrets/admin.token"}"#)
        let invalid = try list()
        #expect(invalid.status == 1)
        #expect(invalid.stderr == "modelctl: cannot use config/modeld.json: configuration error: key \"admin_token_fil\" in config/modeld.json: unknown key\n",
                "\(invalid.stderr)")

        // A config without a token setting falls back to data/admin.token.
        try writeConfig(#"{"listen":"0.0.0.0:8080"}"#)
        try Data("\(Self.token)\n".utf8).write(to: work.appendingPathComponent("data/admin.token"))
        #expect(try list().status == 0)
    }

    @Test(arguments: [["list"], ["health"], ["latest", "--sdk", "1"]])
    func unreachableServer_exits1NamingURL_SPEC7(command: [String]) throws {
        // Port 1 (tcpmux) is privileged and unused: the connection is refused at once.
        let result = try modelctl(command + ["--server", "http://127.0.0.1:1", "--token", "x"])
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("modelctl: cannot reach http://127.0.0.1:1: "))
    }

    @Test(arguments: [
        ["publish", "m.gguf", "--sdk-min", "2.3", "--rollout", "101"],
        ["publish", "m.gguf", "--sdk-min", "2.x"],
        ["publish", "m.gguf", "--sdk-min", "3.0", "--sdk-max", "2.9"],
        ["publish", "m.gguf", "--sdk-min", "2.3", "--sdk-max", "2.3.0"],
        ["publish", "m.gguf", "--sdk-min", "1", "--channel", "Beta"],
        ["publish", "m.gguf", "--sdk-min", "1", "--id", "not-a-uuid"],
        ["publish", "no-extension", "--sdk-min", "1"],
        ["publish", "m.gguf"],
        ["rollout", "6f1c2f9e-5a4b-4c1d-9e8f-0a1b2c3d4e5f", "-1"],
        ["show", "../etc/passwd"],
        ["latest"],
        ["list", "--token", "a", "--token-file", "b"],
        ["list", "--server", "ftp://example.com"],
        ["no-such-command"],
    ])
    func usageErrors_exit2BeforeAnyRequest_SPEC7(arguments: [String]) throws {
        let result = try modelctl(arguments)
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.contains("Usage:") || result.stderr.contains("Error:"))
    }

    @Test func health_exits0Quietly_whenHealthy_SPEC4_4() throws {
        let server = try FakeAdminServer(token: Self.token)
        let result = try modelctl(["health", "--server", server.url])
        #expect(result.status == 0)
        #expect(result.stdout.isEmpty && result.stderr.isEmpty)
        let verbose = try modelctl(["health", "--server", server.url, "--json"])
        #expect(try json(verbose.stdout)["status"] as? String == "ok")
    }

    @Test func health_exits1_whenDraining_SPEC4_4() throws {
        let server = try FakeAdminServer(token: Self.token, healthStatus: 503)
        let result = try modelctl(["health", "--server", server.url])
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("modelctl: unhealthy: HTTP 503"))
    }

    @Test func latest_printsDocument_orNoModelExits1_SPEC4_1() throws {
        let server = try FakeAdminServer(token: Self.token)
        let id = try #require(try publish(server, try modelFile(size: 10), ["--sdk-max", "3.0"])["id"] as? String)
        let found = try modelctl(["latest", "--sdk", "2.10", "--server", server.url, "--json"])
        #expect(found.status == 0, "\(found.stderr)")
        #expect(try json(found.stdout)["id"] as? String == id)
        let missing = try modelctl(["latest", "--sdk", "3.0", "--server", server.url])
        #expect(missing.status == 1)
        #expect(missing.stderr == "modelctl: no model for sdk 3.0\n")
    }
}

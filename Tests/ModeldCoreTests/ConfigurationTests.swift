import Foundation
import Testing
@testable import ModeldConfig
@testable import ModeldCore

/// The package root, from this file's path (Tests/ModeldCoreTests/ConfigurationTests.swift).
private func repositoryRoot(_ file: String = #filePath) -> String {
    var parts = file.split(separator: "/", omittingEmptySubsequences: false)
    parts.removeLast(3)
    return parts.joined(separator: "/")
}

/// Loads with an in-memory file system; `files` maps paths to contents.
private func load(_ arguments: [String] = [], env: [String: String] = [:],
                  files: [String: String] = [:]) throws(ConfigurationError) -> Configuration {
    let outcome = try Configuration.load(arguments: arguments, environment: env,
                                         readFile: { files[$0].map { Array($0.utf8) } }, hostName: "host-a")
    guard case .run(let configuration) = outcome else { fatalError("expected a configuration, got help") }
    return configuration
}

private func loadError(_ arguments: [String] = [], env: [String: String] = [:],
                       files: [String: String] = [:]) -> ConfigurationError? {
    do {
        _ = try load(arguments, env: env, files: files)
        return nil
    } catch {
        return error
    }
}

@Suite struct ConfigurationTests {
    @Test func config_defaultsWithoutFile_SPEC8() throws {
        let c = try load()
        #expect(c.listen == .init(host: "0.0.0.0", port: 8080))
        #expect(c.publicBaseURL == nil)
        #expect(c.modelsDir == "models" && c.dataDir == "data")
        #expect(c.adminToken == nil)
        #expect(c.instanceID == "host-a")
        #expect(c.latestMaxAgeSeconds == 60 && c.workers == 0 && c.retiredGraceDays == 7)
        #expect(c.dedupWindowHours == 48 && c.drainSeconds == 10 && c.eventsSegmentMaxSeconds == 3_600)
        #expect(c.accessLog == .file("data/access-host-a.log"))
        #expect(c.limits == Configuration.Limits())
        #expect(c.limits.maxUploadBytes == 21_474_836_480 && c.limits.maxEventsPerBatch == 1_000)
        #expect(c.sources == ["defaults"])
    }

    @Test func config_fileThenEnvThenFlags_SPEC8() throws {
        let file = #"{"listen":"127.0.0.1:9000","workers":2,"instance_id":"file","data_dir":"/srv/data","limits":{"max_connections":50}}"#
        let c = try load(["--instance-id", "flag", "--workers=4"],
                         env: ["MODELD_INSTANCE_ID": "env", "MODELD_LATEST_MAX_AGE_SECONDS": "5",
                               "MODELD_LIMITS_MAX_CONNECTIONS": "70"],
                         files: ["config/modeld.json": file])
        #expect(c.listen == .init(host: "127.0.0.1", port: 9000))
        #expect(c.instanceID == "flag")
        #expect(c.workers == 4)
        #expect(c.latestMaxAgeSeconds == 5)
        #expect(c.limits.maxConnections == 70)
        #expect(c.accessLog == .file("/srv/data/access-flag.log"))
        #expect(c.sources == ["config/modeld.json", "env MODELD_INSTANCE_ID", "env MODELD_LATEST_MAX_AGE_SECONDS",
                              "env MODELD_LIMITS_MAX_CONNECTIONS", "flag --instance-id", "flag --workers"])
    }

    @Test func config_portFlagReplacesOnlyThePort_SPEC8() throws {
        #expect(try load(["--port", "0"], files: ["config/modeld.json": #"{"listen":"[::1]:9000"}"#]).listen
            == .init(host: "::1", port: 0))
        #expect(try load(["--port", "81", "--listen", "10.0.0.1:80"]).listen == .init(host: "10.0.0.1", port: 81))
        #expect(try load(["--listen", "localhost:1"]).listen == .init(host: "127.0.0.1", port: 1))
    }

    @Test func config_explicitConfigFileIsRead_SPEC8() throws {
        let c = try load(["--config", "/etc/m.json"], files: ["/etc/m.json": #"{"models_dir":"/m","access_log":"-"}"#])
        #expect(c.modelsDir == "/m" && c.accessLog == .stdout && c.sources == ["/etc/m.json"])
        #expect(try load(env: ["MODELD_ACCESS_LOG": "off"]).accessLogDestination == nil)
        #expect(try load(env: ["MODELD_ACCESS_LOG_MAX_BYTES": "1000", "MODELD_ACCESS_LOG_KEEP": "2"]).accessLogDestination
            == .file(path: "data/access-host-a.log", maxBytes: 1000, keep: 2))
        #expect(loadError(["--config", "/nope.json"])?.subject == "flag --config")
    }

    @Test(arguments: [
        (#"{"listn":"0.0.0.0:1"}"#, "key \"listn\" in config/modeld.json", "unknown key"),
        (#"{"limits":{"max_conections":1}}"#, "key \"limits.max_conections\" in config/modeld.json", "unknown key"),
        (#"{"limits":5}"#, "key \"limits\" in config/modeld.json", "expected an object, got a number"),
        (#"{"workers":"2"}"#, "key \"workers\" in config/modeld.json", "expected an integer, got a string"),
        (#"{"workers":1.5}"#, "key \"workers\" in config/modeld.json", "expected an integer, got a number"),
        (#"{"drain_seconds":-1}"#, "key \"drain_seconds\" in config/modeld.json", "-1 is out of range 0...3600"),
        (#"{"events_segment_max_seconds":0}"#, "key \"events_segment_max_seconds\" in config/modeld.json", "0 is out of range 1...86400"),
        (#"{"listen":"0.0.0.0"}"#, "key \"listen\" in config/modeld.json", nil),
        (#"{"listen":"example.com:80"}"#, "key \"listen\" in config/modeld.json", nil),
        (#"{"listen":"1.2.3.4:65536"}"#, "key \"listen\" in config/modeld.json", nil),
        (#"{"public_base_url":"ftp://x"}"#, "key \"public_base_url\" in config/modeld.json", nil),
        (#"{"public_base_url":"http://x/?a"}"#, "key \"public_base_url\" in config/modeld.json", nil),
        (#"{"instance_id":"a/b"}"#, "key \"instance_id\" in config/modeld.json", nil),
        (#"{"admin_token":"a b"}"#, "key \"admin_token\" in config/modeld.json", nil),
        (#"{"admin_token":"abc","admin_token_file":"t"}"#, "key \"admin_token\" in config/modeld.json", nil),
        (#"{"listen": }"#, "config file config/modeld.json", nil),
        (#"[1]"#, "config file config/modeld.json", "expected a JSON object at the top level"),
    ] as [(String, String, String?)])
    func config_badFileValueExits2NamingTheKey_SPEC8(file: String, subject: String, reason: String?) {
        let error = loadError(files: ["config/modeld.json": file])
        #expect(error?.subject == subject)
        if let reason { #expect(error?.reason == reason) }
        #expect(ConfigurationError.exitCode == 2)
    }

    @Test func config_unknownFlagOrBadFlagValueNamesTheFlag_SPEC8() {
        #expect(loadError(["--verbose"])?.subject == "flag --verbose")
        #expect(loadError(["--verbose"])?.reason == "unknown flag; see --help")   // last argument: unknown, not "needs a value"
        #expect(loadError(["--port", "x"])?.subject == "flag --port")
        #expect(loadError(["--port", "70000"])?.subject == "flag --port")
        #expect(loadError(["--workers", "-3"])?.subject == "flag --workers")
        #expect(loadError(["--models-dir"])?.reason == "needs a value")
        #expect(loadError(["serve"])?.subject == "argument \"serve\"")
        #expect(loadError(["--public-base-url", "models.example.com"])?.subject == "flag --public-base-url")
    }

    @Test func config_eventsSegmentMaxSecondsFromFileAndEnv_SPEC9_1() throws {
        #expect(try load(files: ["config/modeld.json": #"{"events_segment_max_seconds":1}"#]).eventsSegmentMaxSeconds == 1)
        #expect(try load(env: ["MODELD_EVENTS_SEGMENT_MAX_SECONDS": "600"]).eventsSegmentMaxSeconds == 600)
    }

    @Test func config_badEnvValueNamesTheVariable_SPEC8() {
        #expect(loadError(env: ["MODELD_WORKERS": "many"])?.subject == "environment variable MODELD_WORKERS")
        #expect(loadError(env: ["MODELD_LIMITS_MAX_EVENTS_PER_BATCH": "0"])?.subject
            == "environment variable MODELD_LIMITS_MAX_EVENTS_PER_BATCH")
    }

    @Test func config_otherModeldVariablesAreIgnored_SPEC8() throws {
        let c = try load(env: ["MODELD_SERVER": "http://x", "MODELD_PORT": "1", "MODELD_LIMITS": "x",
                               "MODELD_WORKERS": "", "HOME": "/root"])
        #expect(c.sources == ["defaults"] && c.listen.port == 8080 && c.workers == 0)
    }

    @Test func config_adminTokenEnvOverridesTokenFileFromFile_SPEC8() throws {
        let files = ["config/modeld.json": #"{"admin_token_file":"data/admin.token"}"#]
        #expect(try load(files: files).adminToken == .file("data/admin.token"))
        #expect(try load(env: ["MODELD_ADMIN_TOKEN": "s3cret-token"], files: files).adminToken == .token("s3cret-token"))
        #expect(loadError(env: ["MODELD_ADMIN_TOKEN": "a", "MODELD_ADMIN_TOKEN_FILE": "b"])?.subject
            == "environment variable MODELD_ADMIN_TOKEN")
        #expect(try load(files: ["config/modeld.json": #"{"admin_token":null}"#]).adminToken == nil)
    }

    @Test func config_publicBaseURLIsNormalisedOrDerived_SPEC4_1() throws {
        #expect(try load(["--public-base-url", "https://cdn.example.com/m/"]).publicBaseURL == "https://cdn.example.com/m")
        #expect(try load().resolvedPublicBaseURL(boundPort: 4321) == "http://127.0.0.1:4321")
        #expect(try load(["--listen", "[::]:0"]).resolvedPublicBaseURL(boundPort: 9) == "http://[::1]:9")
        #expect(try load(["--listen", "10.1.2.3:0"]).resolvedPublicBaseURL(boundPort: 9) == "http://10.1.2.3:9")
        #expect(try load(["--public-base-url", "http://a:1"]).resolvedPublicBaseURL(boundPort: 9) == "http://a:1")
    }

    @Test func config_helpListsEveryFlag_SPEC8() throws {
        let outcome = try Configuration.load(arguments: ["--port", "bad", "--help"], environment: [:],
                                             readFile: { _ in nil }, hostName: "h")
        guard case .help(let text) = outcome else { Issue.record("expected help"); return }
        for flag in ["--config", "--listen", "--port", "--models-dir", "--data-dir", "--public-base-url",
                     "--instance-id", "--workers"] {
            #expect(text.contains(flag))
        }
    }

    @Test func config_shippedConfigLoads_SPEC8() throws {
        let path = repositoryRoot() + "/config/modeld.json"
        let bytes = try #require(try Configuration.readFileFromDisk(path))
        let c = try load(["--config", path], files: [path: String(decoding: bytes, as: UTF8.self)])
        #expect(c.listen == .init(host: "0.0.0.0", port: 8080))
        #expect(c.publicBaseURL == "http://127.0.0.1:8080")
        #expect(c.adminToken == .file("data/admin.token"))
        #expect(c.instanceID == "local-1")
    }

    @Test func config_processHelpersReadDiskAndHostName_SPEC8() throws {
        #expect(try Configuration.readFileFromDisk("/nonexistent/modeld.json") == nil)
        #expect(throws: (any Error).self) { try Configuration.readFileFromDisk("/") }
        let host = Configuration.currentHostName()
        #expect(try ConfigurationKey.instanceID(host) == host)
    }
}

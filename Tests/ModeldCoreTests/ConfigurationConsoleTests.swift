import Testing
@testable import ModeldConfig

/// Config `console` (SPEC §8, §15): defaults, file and env layering, and the exit-2 cases.
@Suite struct ConfigurationConsoleTests: ConfigurationLoading {
    @Test func defaults_enabledForTwelveHours() throws {
        let c = try load().console
        #expect(c.enabled && c.sessionHours == 12 && c.sessionSeconds == 43_200)
    }

    @Test func fileThenEnv() throws {
        let c = try load(file: #"{"console":{"enabled":false,"session_hours":0.001}}"#).console
        #expect(!c.enabled && c.sessionSeconds == 4)   // 3.6 s, rounded
        let e = try load(file: #"{"console":{"enabled":false}}"#,
                         env: ["MODELD_CONSOLE_ENABLED": "true", "MODELD_CONSOLE_SESSION_HOURS": "2"]).console
        #expect(e.enabled && e.sessionSeconds == 7_200)
    }

    @Test func badValuesNameTheKey() {
        #expect(error(file: #"{"console":{"enabled":"yes"}}"#)?.contains("console.enabled") == true)
        #expect(error(file: #"{"console":{"session_hours":0}}"#)?.contains("console.session_hours") == true)
        #expect(error(file: #"{"console":{"session_hours":9000}}"#)?.contains("console.session_hours") == true)
        #expect(error(file: #"{"console":{"sessions":1}}"#)?.contains("console.sessions") == true)
        #expect(error(env: ["MODELD_CONSOLE_ENABLED": "maybe"])?.contains("MODELD_CONSOLE_ENABLED") == true)
    }
}

/// The keys only the console reads (SPEC §8 v5): `pricing_file` and `trusted_proxies`.
@Suite struct ConfigurationOperatorKeysTests: ConfigurationLoading {
    @Test func pricingFile_isResolvedFromTheConfigFilesDirectory() throws {
        #expect(try load().console.pricingFile == "config/pricing.json")
        #expect(try load(file: #"{"pricing_file":"prices/p.json"}"#).console.pricingFile == "config/prices/p.json")
        #expect(try load(file: #"{"pricing_file":"/etc/modeld/p.json"}"#).console.pricingFile == "/etc/modeld/p.json")
        #expect(try load(env: ["MODELD_PRICING_FILE": "../p.json"]).console.pricingFile == "config/../p.json")
        let explicit = try Configuration.load(arguments: ["--config", "/srv/m/modeld.json"], environment: [:],
                                              readFile: { _ in Array("{}".utf8) }, hostName: "h")
        guard case .run(let c) = explicit else { Issue.record("help"); return }
        #expect(c.console.pricingFile == "/srv/m/pricing.json")
        #expect(error(file: #"{"pricing_file":""}"#)?.contains("pricing_file") == true)
    }

    @Test func trustedProxies_fileAndEnv_andBadBlocksNameTheKey() throws {
        #expect(try load().console.trustedProxies.isEmpty)
        let c = try load(file: #"{"trusted_proxies":["10.0.0.0/8","fd00::/8","127.0.0.1"]}"#).console
        #expect(c.trustedProxies.map(\.description) == ["10.0.0.0/8", "fd00::/8", "127.0.0.1/32"])
        #expect(try load(env: ["MODELD_TRUSTED_PROXIES": "192.168.0.0/16,::1"]).console.trustedProxies.count == 2)
        #expect(error(file: #"{"trusted_proxies":["10.0.0.0/40"]}"#)?.contains("trusted_proxies") == true)
        #expect(error(file: #"{"trusted_proxies":"10.0.0.0/8"}"#)?.contains("trusted_proxies") == true)
        #expect(error(env: ["MODELD_TRUSTED_PROXIES": "proxy.local"])?.contains("MODELD_TRUSTED_PROXIES") == true)
    }
}

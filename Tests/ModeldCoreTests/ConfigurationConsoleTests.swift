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

import Testing
@testable import ModeldConfig
@testable import ModeldCore

/// Config `signing` (SPEC §12): parsing, defaults, env layering and the exit-2 cases. Key file
/// checks happen at start-up (IntegrationTests.SigningServerTests).
@Suite struct ConfigurationSigningTests: ConfigurationLoading {
    @Test func absentOrNull_isUnsigned() throws {
        #expect(try load().signing == nil)
        #expect(try load(file: #"{"signing":null}"#).signing == nil)
    }

    @Test func file_keysAndDefaults() throws {
        let s = try #require(try load(file: #"{"signing":{"keys":["config/keys/k1.key"]}}"#).signing)
        #expect(s.keys == ["config/keys/k1.key"] && s.ttlSeconds == 604_800 && s.resignSeconds == 3_600)
        let two = try #require(try load(file: #"{"signing":{"keys":["a","b"],"ttl_seconds":120,"resign_seconds":1}}"#).signing)
        #expect(two.keys == ["a", "b"] && two.ttlSeconds == 120 && two.resignSeconds == 1)
    }

    @Test func env_overridesTheFile() throws {
        let s = try #require(try load(file: #"{"signing":{"keys":["a"]}}"#,
                                      env: ["MODELD_SIGNING_KEYS": "x.key,y.key", "MODELD_SIGNING_RESIGN_SECONDS": "5"]).signing)
        #expect(s.keys == ["x.key", "y.key"] && s.resignSeconds == 5)
    }

    @Test(arguments: [
        (#"{"signing":{"keys":[]}}"#, "signing.keys"),
        (#"{"signing":{"keys":["a","b","c"]}}"#, "signing.keys"),
        (#"{"signing":{}}"#, "signing.keys"),
        (#"{"signing":{"keys":["a"],"ttl_seconds":0}}"#, "signing.ttl_seconds"),
        (#"{"signing":{"keys":["a"],"resign_seconds":0}}"#, "signing.resign_seconds"),
        (#"{"signing":{"keys":["a"],"colour":1}}"#, "signing.colour"),
        (#"{"signing":["a"]}"#, "\"signing\""),
        (#"{"signing":{"keys":"a"}}"#, "signing.keys"),
    ])
    func badValues_nameTheKey(_ file: String, _ key: String) {
        let e = error(file: file)
        #expect(e?.contains(key) == true, "\(e ?? "no error")")
    }

    @Test func envTTLWithoutKeys_isAnError() {
        #expect(error(env: ["MODELD_SIGNING_TTL_SECONDS": "60"])?.contains("signing.keys") == true)
    }
}

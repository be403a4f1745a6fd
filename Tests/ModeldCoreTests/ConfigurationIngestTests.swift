import Testing
@testable import ModeldConfig

/// Config of SPEC §18: `ingest_only`, `events_ship`, `guard_events_from` + `guard_events_*`.
@Suite struct ConfigurationIngestTests: ConfigurationLoading {
    @Test func defaults_offAndNoBuckets() throws {
        let i = try load().ingest
        #expect(!i.only && i.ship == nil && i.guardEventsFrom == nil)
    }

    @Test func fileThenEnv() throws {
        let c = try load(file: #"{"ingest_only":true,"events_ship":{"to":"s3://b/p","endpoint":"http://127.0.0.1:9000","credentials_file":"/run/s3"}}"#,
                         env: ["MODELD_EVENTS_SHIP_REGION": "auto", "MODELD_GUARD_EVENTS_FROM": "s3://b/p",
                               "MODELD_GUARD_EVENTS_ENDPOINT": "https://r2.example", "MODELD_GUARD_EVENTS_ADDRESSING": "virtual"]).ingest
        #expect(c.only)
        #expect(c.ship?.url == "s3://b/p" && c.ship?.endpoint == "http://127.0.0.1:9000" && c.ship?.region == "auto"
                && c.ship?.credentialsFile == "/run/s3" && c.ship?.profile == "default")
        #expect(c.guardEventsFrom?.url == "s3://b/p" && c.guardEventsFrom?.endpoint == "https://r2.example"
                && c.guardEventsFrom?.addressing == "virtual" && c.guardEventsFrom?.region == "us-east-1")
        #expect(try load(env: ["MODELD_INGEST_ONLY": "1"]).ingest.only)
    }

    @Test func badValuesNameTheKey() {
        #expect(error(file: #"{"events_ship":{"to":"s3://b","endpoint":"http://e","bogus":1}}"#)?.contains("events_ship.bogus") == true)
        #expect(error(file: #"{"events_ship":{"to":"b/p","endpoint":"http://e"}}"#)?.contains("events_ship.to") == true)
        #expect(error(file: #"{"events_ship":{"to":"s3://b"}}"#)?.contains("events_ship.endpoint") == true)
        #expect(error(file: #"{"events_ship":{"endpoint":"http://e"}}"#)?.contains("events_ship.to") == true)
        #expect(error(file: #"{"events_ship":"s3://b"}"#)?.contains("events_ship") == true)
        #expect(error(file: #"{"guard_events_endpoint":"http://e"}"#)?.contains("guard_events_from") == true)
        #expect(error(file: #"{"guard_events_from":"s3://b"}"#)?.contains("guard_events_endpoint") == true)
        #expect(error(file: #"{"guard_events_from":"s3://b","guard_events_endpoint":"http://e","guard_events_addressing":"dns"}"#)?
            .contains("guard_events_addressing") == true)
        #expect(error(env: ["MODELD_INGEST_ONLY": "yes"])?.contains("MODELD_INGEST_ONLY") == true)
    }
}

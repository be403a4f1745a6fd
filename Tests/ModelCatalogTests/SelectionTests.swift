import Testing
@testable import ModelCatalog

@Suite struct SelectionTests {
    // Independent vectors: python3 -c 'import hashlib; r="80a2c3d1-82d1-4cf8-9d35-d7f257c4c31e";
    //   print(int.from_bytes(hashlib.sha256((r+":"+"alice").encode()).digest()[:4],"big")%100)'
    static let rolloutID = "80a2c3d1-82d1-4cf8-9d35-d7f257c4c31e"
    @Test(arguments: [
        ("80a2c3d1-82d1-4cf8-9d35-d7f257c4c31e", "alice", 76),
        ("80a2c3d1-82d1-4cf8-9d35-d7f257c4c31e", "bob", 64),
        ("80a2c3d1-82d1-4cf8-9d35-d7f257c4c31e", "", 92),
        ("80a2c3d1-82d1-4cf8-9d35-d7f257c4c31e", "c1", 50),
        ("80a2c3d1-82d1-4cf8-9d35-d7f257c4c31e", "c4", 46),
        ("8d26dce3-a67c-4ab7-b68c-01a5318972ab", "client-1", 18),
        ("8d26dce3-a67c-4ab7-b68c-01a5318972ab", "client-2", 72),
    ])
    func bucket_matchesIndependentVectors_SPEC3(id: String, client: String, bucket: Int) {
        #expect(ReleaseSelector.bucket(releaseID: id, clientID: client) == bucket)
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let releases: [Release]
        let sdk: String
        var channel = "stable"
        var client: String? = nil
        let expected: Int64?
        var dependsOnClient = false
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "highest seq wins", releases: [rel(1), rel(2), rel(3, min: "2.0")], sdk: "1.5", expected: 2),
        Case(name: "sdk_min inclusive", releases: [rel(1, min: "2.3")], sdk: "2.3.0", expected: 1),
        Case(name: "below sdk_min", releases: [rel(1, min: "2.3")], sdk: "2.2.999999", expected: nil),
        Case(name: "sdk_max exclusive", releases: [rel(1, min: "1", max: "3.0")], sdk: "3", expected: nil),
        Case(name: "below sdk_max", releases: [rel(1, min: "1", max: "3.0")], sdk: "2.999999", expected: 1),
        Case(name: "numeric compare 2.10 > 2.9", releases: [rel(1, min: "2.9"), rel(2, min: "2.10")], sdk: "2.9.5", expected: 1),
        Case(name: "paused falls back", releases: [rel(1), rel(2, state: .paused)], sdk: "1", expected: 1),
        Case(name: "retired falls back", releases: [rel(1), rel(2, state: .retired)], sdk: "1", expected: 1),
        Case(name: "other channel ignored", releases: [rel(1), rel(2, channel: "beta")], sdk: "1", expected: 1),
        Case(name: "channel selects", releases: [rel(1), rel(2, channel: "beta")], sdk: "1", channel: "beta", expected: 2),
        Case(name: "no client never in partial, answer public", releases: [rel(1), rel(2, percent: 99, id: rolloutID)], sdk: "1",
             expected: 1),
        Case(name: "client in bucket (46 < 50)", releases: [rel(1), rel(2, percent: 50, id: rolloutID)], sdk: "1",
             client: "c4", expected: 2, dependsOnClient: true),
        Case(name: "client at bucket edge (50 !< 50)", releases: [rel(1), rel(2, percent: 50, id: rolloutID)], sdk: "1",
             client: "c1", expected: 1, dependsOnClient: true),
        Case(name: "client at 51 %", releases: [rel(1), rel(2, percent: 51, id: rolloutID)], sdk: "1",
             client: "c1", expected: 2, dependsOnClient: true),
        Case(name: "0 % never matches, does not depend", releases: [rel(1), rel(2, percent: 0, id: rolloutID)], sdk: "1",
             client: "c4", expected: 1),
        Case(name: "partial below the winner does not matter", releases: [rel(1, percent: 50, id: rolloutID), rel(2)], sdk: "1",
             client: "c4", expected: 2),
        Case(name: "partial outside sdk range does not matter", releases: [rel(1), rel(2, min: "5", percent: 50, id: rolloutID)],
             sdk: "1", client: "c4", expected: 1),
        Case(name: "only a partial, client out", releases: [rel(2, percent: 50, id: rolloutID)], sdk: "1",
             client: "alice", expected: nil, dependsOnClient: true),
        Case(name: "empty catalog", releases: [], sdk: "1", expected: nil),
    ]

    @Test(arguments: cases)
    func selection_table_SPEC3(c: Case) {
        let s = ReleaseSelector.select(from: c.releases, sdk: v(c.sdk), channel: c.channel, clientID: c.client)
        #expect(s.release?.seq == c.expected)
        #expect(s.dependsOnClientID == c.dependsOnClient)
    }

    @Test func selection_pausedReleaseFallsBack_SPEC3() throws {
        var catalog = try Catalog(releases: [rel(1), rel(2)])
        #expect(catalog.select(sdk: v("1"), clientID: nil).release?.seq == 2)
        _ = try catalog.apply(ReleasePatch(state: .paused), to: rel(2).id, now: t0)
        #expect(catalog.select(sdk: v("1"), clientID: nil).release?.seq == 1)
        _ = try catalog.apply(ReleasePatch(state: .active), to: rel(2).id, now: t0)
        #expect(catalog.select(sdk: v("1"), clientID: nil).release?.seq == 2)
    }

    @Test func state_retiredIsFinal_SPEC3() throws {
        var catalog = try Catalog(releases: [rel(1)])
        let r = try catalog.retire(id: rel(1).id, now: t0)
        #expect(r.state == .retired && r.retiredAt == t0)
        for patch in [ReleasePatch(state: .active), ReleasePatch(rolloutPercent: 5), ReleasePatch(label: "x"), ReleasePatch(state: .retired)] {
            #expect(throws: CatalogError(.retired, parameter: "state", "release \(r.id) is retired and cannot change")) {
                try catalog.apply(patch, to: r.id, now: t0)
            }
        }
    }

    @Test func patch_validatesAndReportsParameter_SPEC7_1() throws {
        var catalog = try Catalog(releases: [rel(1, min: "2.0")])
        let id = rel(1).id
        #expect(throws: CatalogError.self) { try catalog.apply(ReleasePatch(rolloutPercent: 101), to: id, now: t0) }
        do { _ = try catalog.apply(ReleasePatch(sdkMax: .some("1.9")), to: id, now: t0); Issue.record("accepted") } catch {
            #expect(error.code == .invalidParameter && error.parameter == "sdk_max")
        }
        do { _ = try catalog.apply(ReleasePatch(label: "x"), to: "00000000-0000-4000-8000-000000000099", now: t0); Issue.record("accepted") } catch {
            #expect(error.code == .notFound)
        }
        let r = try catalog.apply(ReleasePatch(rolloutPercent: 10, sdkMax: .some("3"), label: "canary"), to: id, now: t0)
        #expect(r.rolloutPercent == 10 && r.sdkMax == "3" && r.label == "canary")
        let r2 = try catalog.apply(ReleasePatch(sdkMax: .some(nil)), to: id, now: t0)
        #expect(r2.sdkMax == nil && r2.sdkMaxVersion == nil)
    }

    @Test func patch_parsesJSONBody_SPEC7_1() throws {
        let p = try ReleasePatch(json: Array(#"{"rollout_percent":25,"state":"paused","sdk_max":null,"label":"x"}"#.utf8))
        #expect(p == ReleasePatch(rolloutPercent: 25, state: .paused, sdkMax: .some(nil), label: "x"))
        #expect(try ReleasePatch(json: Array(#"{"sdk_max":"3.0"}"#.utf8)).sdkMax == .some("3.0"))
        for bad in [#"{"rollout":5}"#, #"{"state":"gone"}"#, #"{"rollout_percent":"5"}"#, "[]", "nope"] {
            #expect(throws: CatalogError.self, "\(bad)") { try ReleasePatch(json: Array(bad.utf8)) }
        }
        #expect(try ReleasePatch(json: Array("{}".utf8)).isEmpty, "the route answers an empty patch with the release as it is")
    }
}

@Suite struct CatalogSnapshotTests {
    @Test func snapshot_answersPrebuiltDocuments_SPEC4_1() throws {
        let partialID = SelectionTests.rolloutID
        let catalog = try Catalog(releases: [rel(1), rel(2, percent: 50, id: partialID), rel(3, state: .paused)])
        let snap = CatalogSnapshot(catalog: catalog, publicBaseURL: "http://h")
        let anon = try #require(snap.latest(sdk: v("1"), clientID: nil))
        #expect(anon.release.seq == 1 && !anon.dependsOnClientID)
        #expect(snap.document(anon) == rel(1).documentJSON(publicBaseURL: "http://h"))
        #expect(snap.latest(sdk: v("1"), clientID: "c4")?.release.seq == 2)  // bucket 46 < 50
        #expect(snap.latest(sdk: v("0.9"), clientID: nil) == nil)
        #expect(snap.latestDetails == catalog.latestDetailsJSON(publicBaseURL: "http://h"))
    }
}

import Foundation
import Testing
@testable import ModelCatalog
import SelectionVectors

/// The server side of the shared selection vectors (Tests/Fixtures/selection-cases.json,
/// SPEC §9.2): the catalog the fixture holds, answered the way `/latest` answers it, gives the
/// expected release and variant for every case; the rules snapshots modeld writes for it are
/// the ones the fixture lists; the guarded release's arms are the expected ones.
@Suite struct SelectionVectorTests {
    let vectors: SelectionVectors
    let snapshot: CatalogSnapshot

    init() throws {
        vectors = try SelectionVectors.load()
        snapshot = CatalogSnapshot(catalog: try Catalog(decoding: vectors.catalogJSON), publicBaseURL: vectors.publicBaseURL)
    }

    @Test func latestAnswersEveryCase() throws {
        #expect(vectors.cases.count > 500)
        var failures: [String] = []
        for c in vectors.cases {
            let answer = snapshot.latest(sdk: c.sdk, channel: c.channel, clientID: c.clientID, device: c.device, bases: c.queryBases)
            let got = try answer.map { a in
                let doc = try JSONSerialization.jsonObject(with: Data(snapshot.document(a))) as? [String: Any] ?? [:]
                return SelectionVectors.Expected(id: a.release.id, variant: doc["variant"] as? String, url: doc["url"] as? String ?? "",
                                                 sha256: doc["sha256"] as? String ?? "", size: (doc["size"] as? NSNumber)?.int64Value ?? -1)
            }
            if got != c.expect { failures.append("\(c.name): got \(String(describing: got)), expected \(String(describing: c.expect))") }
        }
        #expect(failures.isEmpty, "\(failures.count) cases differ: \(failures.prefix(5))")
    }

    @Test func rulesSnapshotsAreTheFixtures() throws {
        let catalog = snapshot.catalog
        #expect(catalog.channels == vectors.rules.keys.sorted())
        for channel in catalog.channels {
            let bytes = catalog.rulesJSON(channel: channel, catalogVersion: catalog.catalogVersion, publicBaseURL: vectors.publicBaseURL)
            let written = try JSONDecoder().decode(RulesSnapshot.self, from: Data(bytes))
            #expect(written == vectors.rules[channel], "channel \(channel)")
            // Nothing the operator keeps to itself: no state, no guard, no file names.
            let text = String(decoding: bytes, as: UTF8.self)
            for key in ["\"state\"", "\"guard\"", "\"file\"", "\"content_type\"", "\"retired_at\"", "\"added_at\""] {
                #expect(!text.contains(key), "\(key) in the rules of \(channel)")
            }
        }
    }

    @Test func guardedArms() {
        let guarded = snapshot.catalog.release(id: vectors.guardedReleaseID)!
        let armed = vectors.cases.filter(\.hasArm)
        #expect(armed.contains { $0.arm == .treatment } && armed.contains { $0.arm == .control } && armed.contains { $0.arm == nil })
        for c in armed {
            #expect(ReleaseSelector.arm(releaseID: guarded.id, clientID: c.clientID!, percent: guarded.rolloutPercent) == c.arm, "\(c.name)")
            // Treatment is served the challenger; control never is.
            if c.arm == .treatment { #expect(c.expect?.id == guarded.id, "\(c.name)") }
            if c.arm == .control { #expect(c.expect?.id != guarded.id, "\(c.name)") }
        }
    }
}

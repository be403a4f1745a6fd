import Foundation
import Testing
@testable import ModelCatalog
import SelectionVectors
import TestRandomness

/// SPEC §17.1: selection through an index by channel answers exactly what selection over the
/// whole catalog answers, at one channel or at hundreds.
@Suite struct ChannelIndexTests {
    @Test func index_keepsOnlySelectableReleasesOfEachChannel_inCatalogOrder() {
        let releases = [rel(1), rel(2, channel: "beta"), rel(3, state: .paused), rel(4), rel(5, channel: "beta", state: .retired), rel(6, channel: "beta")]
        let index = ChannelIndex(releases)
        #expect(index.releases(of: "stable").map { $0.seq } == [1, 4])
        #expect(index.releases(of: "beta").map { $0.seq } == [2, 6])
        #expect(index.releases(of: "nope").isEmpty)
        #expect(index.select(sdk: v("1"), channel: "nope", clientID: "c").release == nil)
    }

    /// Random catalogs over a few channels with every selection feature (ranges, partial and
    /// 0 % rollouts, paused and retired releases): the index's answer is the whole catalog's,
    /// `dependsOnClientID` included.
    @Test func index_answersAsTheWholeCatalog_randomCatalogs() {
        var g = SeededGenerator(state: 36)
        let channels = ["stable", "beta", "a", "b"]
        let versions = ["1.0", "1.5", "2.0", "2.3", "3.0"]
        var compared = 0
        for _ in 0..<200 {
            let releases = (1...Int64.random(in: 1...30, using: &g)).map { seq in
                let min = versions.randomElement(using: &g)!
                let max = Bool.random(using: &g) ? versions.filter { SDKVersion($0)! > SDKVersion(min)! }.randomElement(using: &g) : nil
                return rel(seq, min: min, max: max, channel: channels.randomElement(using: &g)!,
                           percent: [0, 10, 50, 100, 100, 100].randomElement(using: &g)!,
                           state: [.active, .active, .active, .paused, .retired].randomElement(using: &g)!,
                           id: randomID(&g))
            }
            let index = ChannelIndex(releases)
            for channel in channels + ["other"] {
                for sdk in ["0.9", "1.0", "1.7", "2.3", "2.9", "3.0", "9"] {
                    for client in [nil, "c1", "c2", "alice", "bob"] {
                        let whole = ReleaseSelector.select(from: releases, sdk: v(sdk), channel: channel, clientID: client)
                        let indexed = index.select(sdk: v(sdk), channel: channel, clientID: client)
                        #expect(whole.release == indexed.release && whole.dependsOnClientID == indexed.dependsOnClientID)
                        compared += 1
                    }
                }
            }
        }
        #expect(compared == 200 * 5 * 7 * 5)
    }

    /// The shared selection vectors answered from their catalog alone and from the same catalog
    /// inside 500 more channels of 20 releases each: every case gets the same body.
    @Test func selectionVectors_sameAnswersAmongFiveHundredOtherChannels() throws {
        let vectors = try SelectionVectors.load()
        let alone = try Catalog(decoding: vectors.catalogJSON)
        var releases = alone.releases
        var seq = alone.nextSeq
        for c in 0..<500 {
            for _ in 0..<20 {
                releases.append(rel(seq, channel: "other-\(c)", percent: seq % 3 == 0 ? 50 : 100,
                                    id: UUID().uuidString.lowercased()))
                seq += 1
            }
        }
        let crowded = try Catalog(releases: releases, nextSeq: seq, catalogVersion: alone.catalogVersion, publicBaseURL: alone.publicBaseURL)
        #expect(crowded.releases.count == alone.releases.count + 10_000)
        let a = CatalogSnapshot(catalog: alone, publicBaseURL: vectors.publicBaseURL)
        let b = CatalogSnapshot(catalog: crowded, publicBaseURL: vectors.publicBaseURL)
        for c in vectors.cases {
            let x = a.latest(sdk: c.sdk, channel: c.channel, clientID: c.clientID, device: c.device, bases: c.queryBases)
            let y = b.latest(sdk: c.sdk, channel: c.channel, clientID: c.clientID, device: c.device, bases: c.queryBases)
            #expect(x == y, "\(c.name)")
            #expect(x.map(a.document) == y.map(b.document), "\(c.name)")
            #expect(x?.release.id == c.expect?.id, "\(c.name)")
        }
    }

    /// A release id whose rollout buckets differ from every other's.
    private func randomID(_ g: inout SeededGenerator) -> String {
        let hex = String(g.next() & 0xffff_ffff_ffff, radix: 16)
        return "00000000-0000-4000-8000-" + String(repeating: "0", count: 12 - hex.count) + hex
    }

    // MARK: Which channels a change touches (SPEC §17.1)

    @Test func changedChannels_namesOnlyTheChannelsWhoseReleasesDiffer() throws {
        let before = try Catalog(releases: [rel(1), rel(2, channel: "beta"), rel(3, channel: "gamma")], publicBaseURL: "http://h")
        var after = before
        _ = try after.apply(ReleasePatch(rolloutPercent: 40), to: rel(2).id, now: t0)
        #expect(after.changedChannels(since: before) == ["beta"])
        _ = try after.append { seq in rel(seq, channel: "delta") }
        #expect(after.changedChannels(since: before) == ["beta", "delta"])
        // No release changed (`catalog bump`), or the base URL did: every channel.
        #expect(before.changedChannels(since: before) == nil)
        var moved = before
        moved.publicBaseURL = "http://other"
        #expect(moved.changedChannels(since: before) == nil)
    }
}

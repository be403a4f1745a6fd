import ContentDigest
import Foundation
import ModeldSigning
import SelectionVectors
import Testing
@testable import ModeldClient

/// The rules index (SPEC §17.2) without I/O: its encoding round-trips and signs its entries, and
/// a snapshot named by an entry is accepted only with the entry's size, SHA-256 and catalog and
/// its own channel.
@Suite struct RulesIndexTests {
    let vectors: SelectionVectors

    init() throws { vectors = try SelectionVectors.load() }

    private func entry(_ channel: String, _ bytes: [UInt8]) -> RulesIndex.Entry {
        RulesIndex.Entry(file: "\(channel)/\(vectors.rules[channel]!.catalog).json", sha256: SHA256Hex.of(bytes), size: bytes.count)
    }

    @Test func encodingRoundTrips_andTheBaseCoversEveryEntry() throws {
        let entries = Dictionary(uniqueKeysWithValues: vectors.rulesJSON.map { ($0.key, entry($0.key, $0.value)) })
        let index = RulesIndex(params: SignatureParams(catalog: 7, created: 100, expires: 200), channels: entries, signatures: [])
        let decoded = try RulesIndex.decode(index.encoded())
        #expect(decoded == index)
        var changed = entries
        changed["beta"]!.size += 1
        #expect(RulesIndex(params: index.params, channels: changed, signatures: []).base != index.base)
        // An entry may name only its own channel's snapshot form.
        let text = String(decoding: index.encoded(), as: UTF8.self).replacingOccurrences(of: "\"beta/", with: "\"stable/")
        #expect(throws: PointerError.self) { try RulesIndex.decode(Array(text.utf8)) }
    }

    @Test func aSnapshotIsVerifiedAgainstItsEntry() throws {
        let verifier = try RulesVerifier(channel: "stable", trustedKeys: [])
        let bytes = vectors.rulesJSON["stable"]!
        let good = entry("stable", bytes)
        let outcome = try verifier.verify(entry: good, signed: true, highest: nil, reusing: nil) { bytes }
        #expect(outcome.snapshot == vectors.rules["stable"] && outcome.catalog == vectors.rules["stable"]!.catalog && outcome.decoded)
        // Reused while the entry names the same bytes: not read again.
        let again = try verifier.verify(entry: good, signed: true, highest: nil, reusing: outcome) { Issue.record("read"); return [] }
        #expect(!again.decoded)
        var badSHA = good
        badSHA.sha256 = String(repeating: "0", count: 64)
        var badSize = good
        badSize.size += 1
        let otherCatalog = RulesIndex.Entry(file: "stable/\(good.catalog! + 1).json", sha256: good.sha256, size: good.size)
        for wrong in [badSHA, badSize, otherCatalog] {
            #expect(throws: ModeldClientError.self) { try verifier.verify(entry: wrong, signed: true, highest: nil, reusing: nil) { bytes } }
        }
        // Another channel's snapshot under this channel's entry.
        let beta = vectors.rulesJSON["beta"]!
        let betaAsStable = RulesIndex.Entry(file: "stable/\(vectors.rules["beta"]!.catalog).json", sha256: SHA256Hex.of(beta), size: beta.count)
        #expect(throws: ModeldClientError.self) { try verifier.verify(entry: betaAsStable, signed: true, highest: nil, reusing: nil) { beta } }
        // Rollback: an entry older than the highest verified catalog of this channel.
        #expect(throws: ModeldClientError.self) { try verifier.verify(entry: good, signed: true, highest: good.catalog! + 1, reusing: nil) { bytes } }
        #expect(try verifier.verify(entry: good, signed: false, highest: good.catalog! + 1, reusing: nil) { bytes }.catalog == nil)
    }
}

import ContentDigest
import Foundation
import ReleaseSelection
import Testing
@testable import ModeldClient
import SelectionVectors

/// The client side of the shared selection vectors (Tests/Fixtures/selection-cases.json,
/// SPEC §9.2): each channel's rules go through the client's verification (an unsigned
/// pointer over the snapshot's exact bytes) and its local evaluation, and every case gets the
/// release and variant the fixture expects — the same cases the server's tests answer.
@Suite struct SelectionVectorTests {
    @Test func rulesEvaluationAnswersEveryCase() throws {
        let vectors = try SelectionVectors.load()
        var verified: [String: RulesSnapshot] = [:]
        for (channel, bytes) in vectors.rulesJSON {
            let pointer = Self.unsignedPointer(channel: channel, catalog: vectors.rules[channel]!.catalog, body: bytes)
            verified[channel] = try RulesVerifier(channel: channel, trustedKeys: []).verify(pointer: pointer, snapshot: bytes, now: Date(), highest: nil).snapshot
        }
        var failures: [String] = []
        for c in vectors.cases {
            let got = verified[c.channel]?.answer(sdk: c.sdk, clientID: c.clientID, device: c.device,
                                                  bases: ReportedBases(installed: c.installed)).map { SelectionVectors.Expected($0.document) }
            if got != c.expect { failures.append("\(c.name): got \(String(describing: got)), expected \(String(describing: c.expect))") }
        }
        #expect(failures.isEmpty, "\(failures.count) cases differ: \(failures.prefix(5))")
    }

    @Test func verificationRefusesAnotherChannelOrTamperedBytes() throws {
        let vectors = try SelectionVectors.load()
        let bytes = vectors.rulesJSON["stable"]!
        let pointer = Self.unsignedPointer(channel: "stable", catalog: 42, body: bytes)
        #expect(throws: ModeldClientError.self) {
            try RulesVerifier(channel: "beta", trustedKeys: []).verify(pointer: pointer, snapshot: bytes, now: Date(), highest: nil)
        }
        var tampered = bytes
        tampered[tampered.count / 2] ^= 1
        #expect(throws: ModeldClientError.self) {
            try RulesVerifier(channel: "stable", trustedKeys: []).verify(pointer: pointer, snapshot: tampered, now: Date(), highest: nil)
        }
        // A pointer for catalog 41 over a snapshot saying 42.
        #expect(throws: ModeldClientError.self) {
            try RulesVerifier(channel: "stable", trustedKeys: []).verify(
                pointer: Self.unsignedPointer(channel: "stable", catalog: 41, body: bytes), snapshot: bytes, now: Date(), highest: nil)
        }
    }

    static func unsignedPointer(channel: String, catalog: Int64, body: [UInt8]) -> [UInt8] {
        let now = Int64(Date().timeIntervalSince1970)
        return Array("""
        {"v":1,"kind":"rules","channel":"\(channel)","catalog":\(catalog),"created":\(now),"expires":\(now + 3600),\
        "file":"\(channel)/\(catalog).json","size":\(body.count),"sha256":"\(SHA256Hex.of(body))","signatures":[]}
        """.utf8)
    }
}

import Foundation
import Testing
@testable import ModelCatalog

/// `Catalog(decoding:previous:)` (SPEC §17.1: a reload ≤ 100 ms at 10,000 releases) takes the
/// releases whose entries are byte for byte what the previous version encodes, and must give
/// exactly what a full decode gives, errors included.
@Suite struct CatalogReuseTests {
    private func catalog(_ releases: [Release], version: Int64) throws -> Catalog {
        try Catalog(releases: releases, nextSeq: (releases.map(\.seq).max() ?? 0) + 1, catalogVersion: version)
    }

    private var base: [Release] {
        (1...40).map { (n: Int) -> Release in
            let seq = Int64(n)
            let max: String? = n % 7 == 0 ? "9.0" : nil
            let state: Release.State = n % 11 == 0 ? .paused : .active
            return rel(seq, max: max, channel: "c\(n % 4)", percent: n % 5 == 0 ? 30 : 100, state: state, label: n % 3 == 0 ? "L\(n)" : "")
        }
    }

    @Test func unchangedEntriesAreTakenOver_changedOnesDecoded_sameAsAFullDecode_SPEC17_1() throws {
        let previous = try Catalog(decoding: try catalog(base, version: 1).encoded())
        var next = base
        next[9] = rel(10, channel: "c2", label: "relabelled")
        next[19] = rel(20, channel: "c0", state: .retired)
        next.append(rel(41, channel: "c1"))
        let bytes = try catalog(next, version: 2).encoded()

        let reused = try Catalog(decoding: bytes, previous: previous)
        let full = try Catalog(decoding: bytes)
        #expect(reused == full)
        #expect(reused.encoded() == bytes)
        #expect(reused.catalogVersion == 2 && reused.releases.count == 41)
        let taken = reused.releases.indices.filter { $0 < previous.releases.count && reused.releases[$0].isIdentical(to: previous.releases[$0]) }
        #expect(taken == Array(0..<40).filter { $0 != 9 && $0 != 19 })
        #expect(!full.releases[0].isIdentical(to: previous.releases[0]))
    }

    @Test func aShiftedOrForeignPreviousOnlyCostsTheDecode() throws {
        let bytes = try catalog(base, version: 3).encoded()
        let shifted = try catalog(Array(base.dropFirst()), version: 2)
        let other = try catalog([rel(1, channel: "elsewhere")], version: 9)
        for previous in [shifted, other, Catalog.empty] {
            #expect(try Catalog(decoding: bytes, previous: previous) == (try Catalog(decoding: bytes)))
        }
    }

    /// An unchanged release is written back as its entry was read, neither encoded nor decoded
    /// again; a changed one is encoded. A hand-formatted entry stays as written until it changes.
    @Test func decodedEntriesAreWrittenBackAsRead_untilTheirReleaseChanges_SPEC17_1() throws {
        let canonical = String(decoding: try catalog(Array(base.prefix(3)), version: 1).encoded(), as: UTF8.self)
        let id2 = base[1].id, id3 = base[2].id
        let edited = canonical
            .replacingFirst(#"{"id":"\#(id2)","seq":2"#, with: #"{ "id" : "\#(id2)",\#n "seq" : 2"#)
            .replacingFirst(#"{"id":"\#(id3)","seq":3"#, with: #"{"seq":3, "id":"\#(id3)""#)
        #expect(edited != canonical)
        var decoded = try Catalog(decoding: Array(edited.utf8))
        #expect(decoded == (try Catalog(decoding: Array(canonical.utf8))), "the same values")
        #expect(String(decoding: decoded.encoded(), as: UTF8.self) == edited, "every entry as read")
        // A change to the second release encodes it; the third stays as written.
        var patch = ReleasePatch()
        patch.label = "changed"
        _ = try decoded.apply(patch, to: id2, now: t0)
        let written = String(decoding: decoded.encoded(), as: UTF8.self)
        #expect(!written.contains(#"{ "id" : "\#(id2)""#) && written.contains(#""label":"changed""#))
        #expect(written.contains(#"{"seq":3, "id":"\#(id3)""#))
        #expect(try Catalog(decoding: Array(written.utf8)).release(id: id2)?.label == "changed")
    }

    @Test func errorsAreTheFullDecodesWithAPrevious() throws {
        let previous = try catalog(base, version: 1)
        let good = String(decoding: try catalog(base, version: 2).encoded(), as: UTF8.self)
        let id4 = base[3].id
        let broken = [
            good.replacingFirst(#""id":"\#(id4)","seq":4"#, with: #""id":"\#(id4)","seq":"4""#),
            good.replacingFirst(#""releases":["#, with: #""releases":{"a":1},"x":["#),
            #"{"format":1,"releases":null}"#,
            #"[1]"#,
            good.replacingFirst(#""releases":["#, with: #""releases":[{"id":1,"id":2},"#),
        ]
        for text in broken {
            let a = #expect(throws: CatalogError.self) { try Catalog(decoding: Array(text.utf8), previous: previous) }
            let b = #expect(throws: CatalogError.self) { try Catalog(decoding: Array(text.utf8)) }
            #expect(a?.code == .corruptCatalog && a?.parameter == b?.parameter && a?.message == b?.message, "\(text.prefix(80))")
        }
        let seq = #expect(throws: CatalogError.self) { try Catalog(decoding: Array(broken[0].utf8), previous: previous) }
        #expect(seq?.parameter == "releases[3].seq", "\(String(describing: seq))")
        // Fields read in place (times, the file name): each failure names its field.
        let inPlace = [
            (good.replacingFirst(#""file":"\#(id4).onnx""#, with: #""file":"\#(id4).bin""#), "releases[3].file", "is not <id>.<ext>"),
            (good.replacingFirst(#""published_at":""#, with: #""published_at":"x"#), "releases[0].published_at", "not an RFC 3339 time"),
            (good.replacingFirst(#""published_at":""#, with: #""published_at":7,"x":""#), "releases[0].published_at", "must be a string"),
        ]
        for (text, parameter, message) in inPlace {
            #expect(text != good)
            let e = #expect(throws: CatalogError.self) { try Catalog(decoding: Array(text.utf8)) }
            #expect(e?.parameter == parameter && e?.message.contains(message) == true, "\(String(describing: e))")
        }
    }
}

private extension String {
    func replacingFirst(_ target: String, with replacement: String) -> String {
        guard let r = range(of: target) else { return self }
        return replacingCharacters(in: r, with: replacement)
    }
}

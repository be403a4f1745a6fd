import Foundation
@testable import ModeldClient
import Testing

/// The client's choice of transfer (SPEC §16, docs/decisions/cheapest-transfer.md): the fewest
/// bytes of patch, delta, packed and full; ties to the simpler way; a patch only from a model
/// this device holds, as the same variant.
struct TransferChoiceTests {
    static let old = "11111111-1111-4111-8111-111111111111"
    static let older = "22222222-2222-4222-8222-222222222222"
    static let other = "33333333-3333-4333-8333-333333333333"

    /// A release as an answer names it (decoded, as the client reads it).
    static func release(size: Int64 = 1000, packed: Int64? = nil, patches: [(from: String, size: Int64)] = [], variant: String? = nil) -> ReleaseDocument {
        var object: [String: Any] = ["url": "http://h/models/n.bin", "id": UUID().uuidString.lowercased(), "sha256": String(repeating: "a", count: 64),
                                     "size": size, "sdk_min": "1.0", "channel": "stable"]
        object["variant"] = variant
        object["packed"] = packed.map { ["url": "http://h/models/n.bin.pack", "sha256": String(repeating: "b", count: 64), "size": $0, "width": 4] as [String: Any] }
        if !patches.isEmpty {
            object["patches"] = patches.map {
                ["from": $0.from, "url": "http://h/models/n.bin.from-\($0.from).patch", "sha256": String(repeating: "c", count: 64), "size": $0.size] as [String: Any]
            }
        }
        return try! JSONDecoder().decode(ReleaseDocument.self, from: JSONSerialization.data(withJSONObject: object))
    }

    static func model(_ id: String, variant: String? = nil) -> InstalledModel {
        InstalledModel(release: ReleaseDocument(url: "http://h/models/\(id).bin", id: id, sha256: String(repeating: "d", count: 64), size: 1000,
                                        sdkMin: "1.0", channel: "stable", variant: variant),
                       path: URL(fileURLWithPath: "/cache/models/\(id)/model.bin"), prepared: nil)
    }

    func choose(_ release: ReleaseDocument, models: [InstalledModel] = [], delta: Int64? = nil) -> FetchMethod {
        TransferChoice.cheapest(for: release, models: models, deltaBytes: delta).method
    }

    @Test func theFewestBytesWin_whateverTheWay() {
        let r = Self.release(packed: 800, patches: [(Self.old, 500)])
        #expect(choose(r, models: [Self.model(Self.old)], delta: 600) == .patch)
        #expect(choose(r, models: [Self.model(Self.old)], delta: 400) == .delta)
        #expect(choose(r, models: [], delta: 900) == .packed)
        #expect(choose(r, models: [], delta: 700) == .delta)
        #expect(choose(Self.release(packed: 800, patches: [(Self.old, 900)]), models: [Self.model(Self.old)]) == .packed)
        #expect(choose(Self.release()) == .full)
        #expect(choose(Self.release(), delta: 999) == .delta)
    }

    @Test func aTie_goesToTheSimplerWay_fullDeltaPackedPatch() {
        #expect(choose(Self.release(packed: 1000)) == .full)
        #expect(choose(Self.release(), delta: 1000) == .full)
        #expect(choose(Self.release(packed: 700), delta: 700) == .delta)
        #expect(choose(Self.release(packed: 700, patches: [(Self.old, 700)]), models: [Self.model(Self.old)]) == .packed)
        #expect(choose(Self.release(patches: [(Self.old, 700)]), models: [Self.model(Self.old)], delta: 700) == .delta)
    }

    @Test func aPatch_needsItsBaseHere_asTheSameVariant() {
        let r = Self.release(packed: 800, patches: [(Self.old, 300), (Self.older, 400)])
        #expect(choose(r, models: [Self.model(Self.other)]) == .packed)
        // Of two bases held, the smaller patch, whichever model is active.
        let both = TransferChoice.cheapest(for: r, models: [Self.model(Self.older), Self.model(Self.old)], deltaBytes: nil)
        guard case .patch(let patch, let base) = both else { Issue.record("\(both)"); return }
        #expect(patch.from == Self.old && base.id == Self.old)
        #expect(choose(r, models: [Self.model(Self.older)]) == .patch)
        // A variant's patch starts from that release's same-named variant, not its default file.
        let variant = Self.release(packed: 800, patches: [(Self.old, 300)], variant: "ane")
        #expect(choose(variant, models: [Self.model(Self.old)]) == .packed)
        #expect(choose(variant, models: [Self.model(Self.old, variant: "gpu")]) == .packed)
        #expect(choose(variant, models: [Self.model(Self.old, variant: "ane")]) == .patch)
        #expect(choose(r, models: [Self.model(Self.old, variant: "ane")]) == .packed)
    }

    @Test func withoutAnyOtherWay_theFullFile() {
        #expect(choose(Self.release(patches: [(Self.old, 10)])) == .full)
        #expect(TransferChoice.cheapest(for: Self.release(), models: [Self.model(Self.old)], deltaBytes: nil) == .full)
    }
}

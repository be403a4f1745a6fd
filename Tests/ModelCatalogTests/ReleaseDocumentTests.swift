import Foundation
import Testing
@testable import ModelCatalog
import SelectionVectors

/// One §4.1 document for server and client (issue 35 item 8): what the server writes, decoded
/// the way the client decodes it (ReleaseSelection's `ReleaseDocument`, the type ModeldClient
/// installs from), is the document the server built, re-encodes to the same bytes, and is the
/// document the client's rules evaluation makes for the same inputs.
@Suite struct ReleaseDocumentTests {
    static let base = "https://cdn.example.com"

    /// Server bytes → client decoder → equal, and the decoded value re-encodes byte for byte.
    func roundTrip(_ bytes: [UInt8], equals built: ReleaseDocument, _ context: String) throws {
        let decoded = try JSONDecoder().decode(ReleaseDocument.self, from: Data(bytes))
        #expect(decoded == built, "\(context)")
        #expect(decoded.json == bytes, "\(context): \(String(decoding: decoded.json, as: UTF8.self))")
        #expect(throws: Never.self, "\(context)") { try decoded.checkFields() }
    }

    @Test func everySelectionVector_latestDecodesToItsDocument_andToTheRulesEvaluation() throws {
        let vectors = try SelectionVectors.load()
        let snapshot = CatalogSnapshot(catalog: try Catalog(decoding: vectors.catalogJSON), publicBaseURL: vectors.publicBaseURL)
        var answered = 0
        for c in vectors.cases {
            let answer = snapshot.latest(sdk: c.sdk, channel: c.channel, clientID: c.clientID, device: c.device, bases: c.queryBases)
            let rules = vectors.rulesDocument(c)
            guard let answer else {
                #expect(rules == nil, "\(c.name): the rules answer a model /latest does not")
                continue
            }
            answered += 1
            let built = answer.release.document(publicBaseURL: vectors.publicBaseURL, variant: answer.variant)
            try roundTrip(snapshot.document(answer), equals: built, c.name)
            #expect(rules == built, "\(c.name): rules \(String(describing: rules)), /latest \(built)")
        }
        #expect(answered > 100)
    }

    /// Every valid value of the shared field table, published and answered, decodes to itself.
    @Test(arguments: ReleaseFieldCases.all.filter(\.valid))
    func sharedFieldTable_publishedValuesRoundTrip(_ c: ReleaseFieldCases.Case) throws {
        let f = ReleaseFieldCases.fields(for: c)
        let request = try PublishRequest(parameters: f.parameters)
        let release = try Release(id: f.id, seq: 1, ext: "bin", sha256: sha, size: 316, sdkMin: request.sdkMin, sdkMax: request.sdkMax,
                                  channel: f.channel, label: f.label, publishedAt: t0, base: request.base, info: request.info)
        let built = release.document(publicBaseURL: Self.base)
        try roundTrip(release.documentJSON(publicBaseURL: Self.base), equals: built, "\(c)")
        #expect(built.label == f.label && built.sdkMax == f.sdkMax && built.displayName == f.displayName)
    }

    /// The optional members: chunk list, packed form, patches, base, licence — of the release's
    /// file and of a variant's own (never the release's) — through `/latest` and a rules snapshot.
    @Test func derivedFilesAndVariants_roundTripThroughLatestAndRules() throws {
        let chunks = try ChunkListFile(sha256: String(repeating: "cd", count: 32), size: 4096)
        let packed = try TransferFiles.Packed(sha256: String(repeating: "ef", count: 32), size: 80, width: 2)
        let patch = try TransferFiles.Patch(from: rel(1).id, sha256: sha, size: 50)
        let variant = try Variant(name: "8gb", fileID: "00000000-0000-4000-8000-0000000000aa", ext: "gguf", sha256: sha, size: 7000,
                                  chunks: chunks, transfer: TransferFiles(), requires: try VariantRequirements(minRAMMB: 7000), addedAt: t0)
        let release = try Release(
            id: rel(2).id, seq: 2, ext: "mlmodelc.zip", sha256: sha, size: 200, chunks: chunks,
            transfer: TransferFiles(packed: packed, patches: [patch]), sdkMin: "2.3", sdkMax: "3.0", label: "v2", publishedAt: t0,
            variants: [variant], base: try ReleaseBase(channel: "llm", sha256: String(repeating: "01", count: 32)),
            info: try ReleaseInfo(displayName: "Ranker", license: try ReleaseLicense(spdx: "MIT", sha256: sha), minRAMMB: 512))
        let plain = release.document(publicBaseURL: Self.base), ofVariant = release.document(publicBaseURL: Self.base, variant: variant)
        #expect(plain.chunks?.url == "\(Self.base)/models/\(release.file).chunks" && plain.patches?.count == 1 && plain.packed?.width == 2)
        #expect(ofVariant.variant == "8gb" && ofVariant.packed == nil && ofVariant.patches == [] && ofVariant.chunks?.url.hasSuffix(".gguf.chunks") == true)
        try roundTrip(release.documentJSON(publicBaseURL: Self.base), equals: plain, "release")
        try roundTrip(release.documentJSON(publicBaseURL: Self.base, variant: variant), equals: ofVariant, "variant")

        let catalog = try Catalog(releases: [rel(1), release])
        let rules = try JSONDecoder().decode(RulesSnapshot.self, from: Data(catalog.rulesJSON(channel: "stable", catalogVersion: 3, publicBaseURL: Self.base)))
        let device = try DeviceAttributes(parsing: nil, os: nil, ramMB: "8000", device: nil, systemModel: nil)
        let bases = ReportedBases(installed: ["llm": String(repeating: "01", count: 32)])
        #expect(rules.answer(sdk: v("2.5"), clientID: nil, device: .none, bases: bases)?.document == plain)
        #expect(rules.answer(sdk: v("2.5"), clientID: nil, device: device, bases: bases)?.document == ofVariant)
    }
}

import Foundation
import SelectionVectors
import Testing
@testable import ModeldClient

/// The client judges the shared release field table (SPEC §3) as the server does: a document
/// the server could never have published is refused before any download.
@Suite struct ReleaseFieldTests {
    @Test(arguments: ReleaseFieldCases.all)
    func clientChecksTheSharedTable(_ c: ReleaseFieldCases.Case) {
        let f = ReleaseFieldCases.fields(for: c)
        // As a §4.1 document decodes: SPEC §3.2's objects are checked while decoding.
        var doc: [String: Any] = ["url": "https://cdn.example.com/models/\(f.id).onnx", "id": f.id, "sha256": String(repeating: "ab", count: 32),
                                  "size": 316, "sdk_min": f.sdkMin, "channel": f.channel, "label": f.label]
        doc["sdk_max"] = f.sdkMax
        if let channel = f.baseChannel, let sha = f.baseSHA256 { doc["base"] = ["channel": channel, "sha256": sha] }
        doc["display_name"] = f.displayName
        doc["min_ram_mb"] = f.minRAMMB.flatMap { Int($0) }
        let license = ["spdx": f.licenseSPDX, "url": f.licenseURL, "sha256": f.licenseSHA256].compactMapValues { $0 }
        if !license.isEmpty { doc["license"] = license }
        let valid = (try? JSONDecoder().decode(ReleaseDocument.self, from: JSONSerialization.data(withJSONObject: doc)).validate()) != nil
        #expect(valid == (c.valid || c.publishingOnly), "\(c)")
    }
}

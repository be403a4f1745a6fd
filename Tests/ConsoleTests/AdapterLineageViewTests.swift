import AccessTokens
@testable import Console
import ModelCatalog
import Testing

/// SPEC §3.2 on the console's release page: an adapter shows its base (linked when a release of
/// that channel has that file, plain when it is a bundled file), a base lists its adapters.
@Suite struct AdapterLineageViewTests {
    static let baseSHA = String(repeating: "ab", count: 32)

    static func entry(_ n: Int, channel: String, sha: String, base: String?) -> String {
        let id = "00000000-0000-4000-8000-00000000000\(n)"
        let b = base.map { #","base":{"channel":"llm","sha256":"\#($0)"}"# } ?? ""
        return #"{"id":"\#(id)","seq":\#(n),"ext":"gguf","sha256":"\#(sha)","size":10,"sdk_min":"1","channel":"\#(channel)","rollout_percent":100,"state":"active","label":"r\#(n)","published_at":"2026-11-01T10:00:00.000Z"\#(b)}"#
    }

    @Test func releasePageShowsBaseAndAdapters_SPEC3_2() throws {
        let json = #"{"format":1,"catalog_version":3,"next_seq":4,"releases":["#
            + [Self.entry(1, channel: "llm", sha: Self.baseSHA, base: nil),
               Self.entry(2, channel: "llm-lora", sha: String(repeating: "cd", count: 32), base: Self.baseSHA),
               Self.entry(3, channel: "llm-lora", sha: String(repeating: "ef", count: 32), base: String(repeating: "00", count: 32))]
            .joined(separator: ",") + "]}"
        let catalog = try Catalog(decoding: Array(json.utf8))
        let session = ConsoleSession(principal: Principal(name: "n", role: .viewer, tokenSHA256: nil), csrfToken: "c", expiresAtMillis: 0, handle: "h")
        func page(_ i: Int) -> String {
            let r = catalog.releases[i]
            return ReleaseView.page(r, chunkList: nil, served: .init(), guardReport: nil, signature: "unsigned", session: session,
                                    nowMillis: 0, lineage: catalog.lineage(of: r))
        }
        let base = page(0), adapter = page(1), bundled = page(2)
        #expect(base.contains("<dt>Adapters</dt>") && base.contains(#"href="/console/releases/\#(catalog.releases[1].id)""#))
        #expect(!base.contains("<dt>Base</dt>"))
        #expect(adapter.contains("<dt>Base</dt>") && adapter.contains(#"href="/console/releases/\#(catalog.releases[0].id)""#))
        #expect(bundled.contains("<dt>Base</dt>") && bundled.contains("not a release") && !bundled.contains(#"href="/console/releases/\#(catalog.releases[0].id)""#))
    }
}

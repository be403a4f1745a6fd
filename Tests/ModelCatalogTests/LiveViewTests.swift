import Testing
@testable import ModelCatalog

/// What is live (SPEC §15.1), from the contenders `/latest` selects among.
@Suite struct LiveViewTests {
    private func summary(_ view: LiveView) -> [String] {
        view.channels.flatMap { name, ranges in
            ranges.map { r in
                "\(name) \(r.sdkMin)–\(r.sdkMax.map(\.description) ?? "∞"): "
                    + r.serving.map { "\($0.id.suffix(1))=\(($0.share * 1e6).rounded() / 1e6)" }.joined(separator: " ")
                    + (r.shadowed.isEmpty ? "" : " | " + r.shadowed.map { String($0.suffix(1)) }.joined(separator: " "))
            }
        }
    }

    @Test func sharesPerRange_partialsOnTopOfTheFullRelease_SPEC15_1() throws {
        let view = LiveView([rel(1), rel(2, min: "2.0", max: "3.0", percent: 30), rel(3, min: "2.0", percent: 50),
                             rel(4, state: .paused), rel(5, state: .retired), rel(6, percent: 0), rel(7, channel: "beta", percent: 40)])
        #expect(summary(view) == [
            "beta 1.0.0–∞: 7=0.4",
            "stable 1.0.0–2.0.0: 1=1.0 | 6 5 4",
            "stable 2.0.0–3.0.0: 3=0.5 2=0.15 1=0.35 | 6 5 4",
            "stable 3.0.0–∞: 3=0.5 1=0.5 | 6 5 4",
        ])
    }

    @Test func aNewerFullReleaseShadowsOlderOnes_andUncoveredGapsAreLeftOut_SPEC15_1() throws {
        let view = LiveView([rel(1, min: "1.0", max: "4.0"), rel(2, min: "1.0", max: "5.0"), rel(3, min: "0.5", max: "0.9")])
        #expect(summary(view) == ["stable 0.5.0–0.9.0: 3=1.0", "stable 1.0.0–4.0.0: 2=1.0 | 1", "stable 4.0.0–5.0.0: 2=1.0"])
        // A partial release below the newest full one answers nobody; "2" and "2.0.0" are one bound.
        #expect(summary(LiveView([rel(1, min: "2", percent: 50), rel(2, min: "2.0.0")])) == ["stable 2.0.0–∞: 2=1.0 | 1"])
    }

    @Test func oneChannel_isListedEvenWithoutReleases_andTheJSONHasTheSPECShape() throws {
        #expect(LiveView([rel(1)], only: "beta").json == Array(#"{"channels":{"beta":[]}}"#.utf8))
        let json = String(decoding: LiveView([rel(1, min: "1.0", max: "2"), rel(2, percent: 25)]).json, as: UTF8.self)
        let one = #"{"channels":{"stable":[{"sdk_min":"1.0.0","sdk_max":"2.0.0","serving":[{"id":"\#(rel(2).id)","label":"","share":0.25,"variants":[]},"#
            + #"{"id":"\#(rel(1).id)","label":"","share":0.75,"variants":[]}],"shadowed":[]},"#
            + #"{"sdk_min":"2.0.0","sdk_max":null,"serving":[{"id":"\#(rel(2).id)","label":"","share":0.25,"variants":[]}],"shadowed":[]}]}}"#
        #expect(json == one)
    }
}

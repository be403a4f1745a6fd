import ArgumentParser
import Foundation

/// `modelctl show ID`; for a guarded release also the last evaluation's figures (SPEC §11.4).
struct AdminShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "show", abstract: "Show one release.")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "Release UUID.") var id: String

    func validate() throws { try AdminValidation.releaseID(id) }

    func run() throws {
        try failing {
            let api = try global.adminAPI()
            let body = try api.release(id)
            try ReleaseOutput(json: global.json).printRelease(body)
            guard !global.json, (try? JSONDecoder().decode(Guarded.self, from: Data(body)))?.guard != nil else { return }
            let status = try api.client.send(HTTPClientRequest(path: "/admin/models/\(id)/guard")).expect(200).body
            if let figures = try? JSONDecoder().decode(GuardFigures.self, from: Data(status)) {
                print("figures:".padding(toLength: 17, withPad: " ", startingAt: 0) + figures.text)
            }
        }
    }

    private struct Guarded: Decodable {
        struct Guard: Decodable { let status: String? }
        let `guard`: Guard?
    }

    /// `treatment 1204 clients mean 0.0998, control 1188 clients mean 0.5012, delta -0.4014 ± 0.0412, pending 3`
    private struct GuardFigures: Decodable {
        struct Arm: Decodable { let clients: Int; let mean: Double? }
        let arms: [String: Arm]
        let delta: Double?
        let bound: Double?
        let pending_clients: Int?

        var text: String {
            func arm(_ name: String) -> String {
                let a = arms[name]
                return "\(name) \(a?.clients ?? 0) clients mean \(a?.mean.map { String(format: "%.4f", $0) } ?? "-")"
            }
            let d = delta.map { String(format: "%.4f", $0) } ?? "-"
            let b = bound.map { String(format: "%.4f", $0) } ?? "-"
            return "\(arm("treatment")), \(arm("control")), delta \(d) ± \(b), pending \(pending_clients ?? 0)"
        }
    }
}

import ArgumentParser
import Foundation
import GuardRuntime

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
            print("figures:".padding(toLength: 17, withPad: " ", startingAt: 0) + (try GuardStatusDocument.Content(document: status)).figuresLine)
        }
    }

    private struct Guarded: Decodable {
        struct Guard: Decodable { let status: String? }
        let `guard`: Guard?
    }
}

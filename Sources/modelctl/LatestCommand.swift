import ArgumentParser

/// `modelctl latest --sdk V`: what a client at that SDK version would be offered (SPEC §4.1).
struct LatestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "latest", abstract: "Show the model a client would get.")
    @OptionGroup var global: GlobalOptions
    @Option(help: "The client's SDK version, e.g. 2.3.") var sdk: String
    @Option(help: "Release channel (server default: stable).") var channel: String?
    @Option(help: "Client id, for partial rollouts.") var clientId: String?

    func validate() throws {
        _ = try AdminValidation.sdkVersion(sdk, option: "--sdk")
        if let channel { try AdminValidation.channel(channel) }
    }

    func run() throws {
        try failing {
            let request = HTTPClientRequest(path: "/latest", query: [("sdk", sdk), ("channel", channel), ("client_id", clientId)])
            let response = try global.publicClient().send(request)
            if response.status == 404, response.serverError?.code == "no_model" {
                throw CLIFailure("no model for sdk \(sdk)" + (channel.map { " on channel \($0)" } ?? ""))
            }
            try ReleaseOutput(json: global.json).printRelease(try response.expect(200).body)
        }
    }
}

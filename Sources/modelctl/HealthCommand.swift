import ArgumentParser
import Foundation

/// `modelctl health`: exit 0 iff GET /healthz answers 200. It is the container HEALTHCHECK, so
/// it needs no token, prints nothing when healthy (unless --json) and gives up within seconds.
struct HealthCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "health", abstract: "Exit 0 when the server is healthy.")
    @OptionGroup var global: GlobalOptions

    func run() throws {
        try failing {
            var client = try global.publicClient()
            client.connectTimeoutSeconds = 2
            client.requestTimeoutSeconds = 5
            let response = try client.send(HTTPClientRequest(path: "/healthz"))
            guard response.status == 200 else {
                throw CLIFailure("unhealthy: HTTP \(response.status) \(String(decoding: response.body.prefix(200), as: UTF8.self))")
            }
            if global.json { FileHandle.standardOutput.write(Data(response.body)) }
        }
    }
}

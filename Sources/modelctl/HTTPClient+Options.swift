import Foundation

extension GlobalOptions {
    static let defaultServer = "http://127.0.0.1:8080"

    /// `--server`, else `MODELD_SERVER`, else the default.
    var serverURL: String {
        server ?? ProcessInfo.processInfo.environment["MODELD_SERVER"].flatMap { $0.isEmpty ? nil : $0 } ?? Self.defaultServer
    }

    /// A client for the public routes (/healthz, /latest), which need no token.
    func publicClient() -> HTTPClient { HTTPClient(baseURL: serverURL, token: nil) }

    /// A client carrying the admin token (SPEC §7.1); fails when no token can be found.
    func adminClient() throws(CLIFailure) -> HTTPClient {
        HTTPClient(baseURL: serverURL, token: try TokenSource.resolve(self))
    }
}

import Foundation

extension GlobalOptions {
    static let defaultServer = "http://127.0.0.1:8080"

    /// `--server`, else `MODELD_SERVER` (nil: neither given).
    var givenServerURL: String? {
        server ?? ProcessInfo.processInfo.environment["MODELD_SERVER"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// SPEC §7 (v4): `--server`, else `MODELD_SERVER`, else the `listen` address of
    /// ./config/modeld.json (found the way the token is), else http://127.0.0.1:8080.
    func serverURL() throws(CLIFailure) -> String {
        if let givenServerURL { return givenServerURL }
        return try ShippedConfig.load()?.localServerURL ?? Self.defaultServer
    }

    /// A client for the public routes (/healthz, /latest), which need no token.
    func publicClient() throws(CLIFailure) -> HTTPClient { HTTPClient(baseURL: try serverURL(), token: nil) }

    /// A client carrying the admin token (SPEC §7.1); fails when no token can be found.
    func adminClient() throws(CLIFailure) -> HTTPClient {
        HTTPClient(baseURL: try serverURL(), token: try TokenSource.resolve(self))
    }
}

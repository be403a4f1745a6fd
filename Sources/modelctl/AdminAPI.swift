import Foundation

/// The admin routes of SPEC §7.1 over an authenticated client. Each call returns the server's
/// JSON body after checking the status; error bodies become "<status> <code>: <message>".
struct AdminAPI {
    let client: HTTPClient

    func list() throws(CLIFailure) -> [UInt8] {
        try client.send(HTTPClientRequest(path: "/admin/models")).expect(200).body
    }

    func release(_ id: String) throws(CLIFailure) -> [UInt8] {
        try client.send(HTTPClientRequest(path: "/admin/models/\(id)")).expect(200).body
    }

    /// Fields a PATCH may change; nil ones are left out of the JSON.
    struct Change: Encodable {
        var rolloutPercent: Int?
        var state: String?
    }

    func change(_ id: String, _ change: Change) throws(CLIFailure) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        // Not swallowed: reported as the CLI error (exit 1).
        guard let body = try? encoder.encode(change) else { throw CLIFailure("cannot encode the change for \(id)") }
        return try client.send(HTTPClientRequest(method: "PATCH", path: "/admin/models/\(id)", body: .json(Array(body)))).expect(200).body
    }

    /// DELETE retires; a server answering 204 without a body is asked for the release afterwards.
    func retire(_ id: String) throws(CLIFailure) -> [UInt8] {
        let response = try client.send(HTTPClientRequest(method: "DELETE", path: "/admin/models/\(id)")).expect(200, 204)
        return response.status == 204 ? try release(id) : response.body
    }
}

extension GlobalOptions {
    func adminAPI() throws(CLIFailure) -> AdminAPI { AdminAPI(client: try adminClient()) }

    /// Runs one admin call and prints the release it answers with.
    func printRelease(_ call: (AdminAPI) throws -> [UInt8]) throws {
        try ReleaseOutput(json: json).printRelease(try call(adminAPI()))
    }
}

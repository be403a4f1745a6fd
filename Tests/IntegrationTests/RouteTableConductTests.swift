import Foundation
import HTTPServer
import HTTPTestSupport
import HTTPWire
@testable import ModeldCore
import Testing

/// Every route of `Router.table`, through the real modeld: a route added to the table is
/// checked here without a line of test (issue 26 part 3). A new `{parameter}` needs a sample.
@Suite struct RouteTableConductTests {
    @Test func everyRoute_answers405WithItsAllow_HEADAsGET_andCountsUnderItsLabel_SPEC4_4_10() throws {
        let server = try ModeldServer(environment: ["MODELD_CONSOLE_ENABLED": "true", "MODELD_ACCESS_LOG": "off"])
        let list = HTTP.json(try HTTP.get(server.port, "/admin/models", headers: [("Authorization", "Bearer \(server.token)")]))
        let release = try #require((list?["releases"] as? [[String: Any]])?.first, "the demo release")
        let id = try #require(release["id"] as? String)
        let file = try #require(release["file"] as? String)
        let samples = ["id": id, "file": file, "name": "small", "snapshot": "1.json", "rules": "stable.sig.json",
                       "rest": "\(id)/nowhere", "page": "nowhere"]
        // Both credentials on every request: admin routes take the token, console pages the session.
        let credentials = [("Authorization", "Bearer \(server.token)"), ("Cookie", try signIn(server))]

        for route in Router.table.routes {
            let path = try Self.expand(route.pattern.description, samples)
            let label = try #require(route.label as? RequestLabel).route.name
            // A method the route does not answer, or (for a route that answers any) a GET.
            let probe = ["PUT", "DELETE", "POST", "PATCH"].first { !route.methods.contains(Methods(requestMethod: $0)) } ?? "GET"
            let response = try HTTP.request(server.port, probe, path, headers: credentials)
            if route.methods != .all {
                #expect(response.status == 405, "\(probe) \(path)")
                #expect(response.headers["Allow"] == route.allow, "\(probe) \(path)")
                #expect(response.headers["Content-Type"] == "application/json" && response.headers["Cache-Control"] == "no-store")
                let body = try #require(HTTP.json(response), "\(probe) \(path): \(response.text)")
                #expect(Set(body.keys) == ["error", "message"] && body["error"] as? String == "method_not_allowed", "\(body)")
            }
            // The label: the same request once more moves its own counter (nothing else here
            // is counted under it; ≥ as the first one may be recorded after this scrape).
            let before = try Self.requests(server, label, response.status)
            _ = try HTTP.request(server.port, probe, path, headers: credentials)
            #expect(try ModeldServer.eventually(within: 5) { try Self.requests(server, label, response.status) >= before + 1 },
                    "\(probe) \(path) not counted under route=\"\(label)\"")

            guard route.methods.contains(.get) else { continue }
            let get = try HTTP.request(server.port, "GET", path, headers: credentials)
            let head = try Self.head(server, path, headers: credentials)
            #expect(head.status == get.status, "HEAD \(path)")
            // /metrics counts the GET just made: its length may differ, nothing else may.
            let varying: Set<String> = label == "metrics" ? ["date", "content-length"] : ["date"]
            #expect(Self.fields(head.headers, excluding: varying) == Self.fields(get.headers, excluding: varying), "HEAD \(path)")
        }
    }

    /// The pattern with each `{name}` / `{name...}` replaced by its sample.
    static func expand(_ pattern: String, _ samples: [String: String]) throws -> String {
        var path = pattern
        while let open = path.firstIndex(of: "{"), let close = path[open...].firstIndex(of: "}") {
            let name = String(path[path.index(after: open)..<close]).replacingOccurrences(of: "...", with: "")
            let sample = try #require(samples[name], "no sample for {\(name)} in \(pattern)")
            path.replaceSubrange(open...close, with: sample)
        }
        return path
    }

    /// A HEAD on a fresh connection; the server must close it with no byte after the head.
    static func head(_ server: ModeldServer, _ path: String, headers: [(String, String)]) throws -> (status: Int, headers: HTTPFields) {
        let client = try RawClient(port: server.port)
        try client.send("HEAD \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                        + headers.map { "\($0.0): \($0.1)\r\n" }.joined() + "\r\n")
        let head = try client.readHead()
        #expect(client.readToEnd().isEmpty, "HEAD \(path) sent a body")
        return head
    }

    static func fields(_ headers: HTTPFields, excluding: Set<String>) -> [String] {
        headers.map { "\($0.name.lowercased()): \($0.value)" }.filter { !excluding.contains(String($0.prefix { $0 != ":" })) }.sorted()
    }

    static func requests(_ server: ModeldServer, _ route: String, _ status: Int) throws -> Double {
        try server.scrapeMetrics().value("modeld_http_requests_total", nil, ["route": route, "status": String(status)]) ?? 0
    }

    /// A console session cookie (`POST /console/login`, SPEC §15).
    func signIn(_ server: ModeldServer) throws -> String {
        let r = try HTTP.request(server.port, "POST", "/console/login", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                                 body: Array("token=\(server.token)".utf8))
        try #require(r.status == 303, "sign-in: \(r.status) \(r.text)")
        return String(try #require(r.headers["Set-Cookie"]).prefix { $0 != ";" })
    }
}

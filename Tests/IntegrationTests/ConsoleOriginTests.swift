import Foundation
import HTTPTestSupport
import Testing

/// SPEC §15.1 sign-in: a foreign or `null` `Origin` gets 403 on the console's sign-in and on every
/// change made with the session cookie, through the real modeld. `HTTP.request` sends
/// `Host: 127.0.0.1`, so the server's own origin is `http://127.0.0.1`.
@Suite struct ConsoleOriginTests {
    private static let foreign: [[(String, String)]] = [
        [("Origin", "null")], [("Origin", "http://evil.example")], [("Origin", "http://127.0.0.1.evil.example")],
        [("Origin", "http://127.0.0.1:1")], [("Sec-Fetch-Site", "cross-site")], [("Sec-Fetch-Site", "same-site")],
        [("Origin", "null"), ("Sec-Fetch-Site", "same-origin")],
    ]
    private static let own: [[(String, String)]] = [
        [], [("Origin", "http://127.0.0.1")], [("Origin", "https://127.0.0.1")], [("Origin", "http://127.0.0.1"), ("Sec-Fetch-Site", "same-origin")],
    ]

    private static func signIn(_ server: ModeldServer, _ headers: [(String, String)]) throws -> ParsedResponse {
        try HTTP.request(server.port, "POST", "/console/login", headers: [("Content-Type", "application/x-www-form-urlencoded")] + headers,
                         body: Array("token=\(server.token)".utf8))
    }

    private static func isForbidden(_ r: ParsedResponse) -> Bool { r.status == 403 && HTTP.json(r)?["error"] as? String == "forbidden" }

    @Test func signIn_fromAForeignOrNullOrigin_is403_SPEC15_1() throws {
        let server = try ModeldServer(environment: ["MODELD_CONSOLE_ENABLED": "true"])
        for headers in Self.foreign {
            let r = try Self.signIn(server, headers)
            #expect(Self.isForbidden(r) && r.headers["Set-Cookie"] == nil, "\(headers) → \(r.status)")
        }
        // The right token was never counted as a failure: each own-origin sign-in succeeds at once.
        for headers in Self.own {
            let r = try Self.signIn(server, headers)
            #expect(r.status == 303 && r.headers["Set-Cookie"] != nil, "\(headers) → \(r.status)")
        }
    }

    @Test func consoleChanges_fromAForeignOrNullOrigin_are403_SPEC15_1() throws {
        let server = try ModeldServer(environment: ["MODELD_CONSOLE_ENABLED": "true"])
        let bearer = ("Authorization", "Bearer \(server.token)")
        let list = HTTP.json(try HTTP.get(server.port, "/admin/models", headers: [bearer]))
        let id = try #require((list?["releases"] as? [[String: Any]])?.first?["id"] as? String, "the demo release")
        let signIn = try Self.signIn(server, [])
        let cookie = ("Cookie", String(try #require(signIn.headers["Set-Cookie"]).prefix { $0 != ";" }))
        let page = try HTTP.get(server.port, "/console/", headers: [cookie]).text
        let csrf = try #require(page.firstMatch(of: /name="modeld-csrf" content="([0-9a-f]+)"/)?.1)
        let session = [cookie, ("X-CSRF-Token", String(csrf)), ("Content-Type", "application/json")]
        func rollout() throws -> Int? {
            HTTP.json(try HTTP.get(server.port, "/admin/models/\(id)", headers: [bearer]))?["rollout_percent"] as? Int
        }
        let before = try rollout()

        for headers in Self.foreign {
            let patch = try HTTP.request(server.port, "PATCH", "/admin/models/\(id)", headers: session + headers,
                                         body: Array(#"{"rollout_percent":7}"#.utf8))
            #expect(Self.isForbidden(patch), "PATCH \(headers) → \(patch.status)")
            let retire = try HTTP.request(server.port, "DELETE", "/admin/models/\(id)", headers: session + headers)
            #expect(Self.isForbidden(retire), "DELETE \(headers) → \(retire.status)")
            let signOut = try HTTP.request(server.port, "POST", "/console/logout", headers: session + headers)
            #expect(Self.isForbidden(signOut), "logout \(headers) → \(signOut.status)")
        }
        #expect(try rollout() == before, "no refused change was made")
        // Reading needs no origin; the bearer token is no ambient credential, so its Origin does not matter.
        #expect(try HTTP.get(server.port, "/admin/models/\(id)", headers: [cookie, ("Origin", "null")]).status == 200)
        let byToken = try HTTP.request(server.port, "PATCH", "/admin/models/\(id)", headers: [bearer, ("Origin", "null"), ("Content-Type", "application/json")],
                                       body: Array(#"{"rollout_percent":8}"#.utf8))
        #expect(byToken.status == 200)
        #expect(try rollout() == 8)

        let patch = try HTTP.request(server.port, "PATCH", "/admin/models/\(id)", headers: session + [("Origin", "http://127.0.0.1")],
                                     body: Array(#"{"rollout_percent":9}"#.utf8))
        #expect(patch.status == 200, "\(patch.text)")
        #expect(try rollout() == 9)
        let signOut = try HTTP.request(server.port, "POST", "/console/logout", headers: session + [("Origin", "http://127.0.0.1")])
        #expect(signOut.status == 204, "the session survived every refused sign-out")
    }
}

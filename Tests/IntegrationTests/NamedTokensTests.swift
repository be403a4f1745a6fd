import ChildProcesses
import Foundation
import HTTPTestSupport
import Testing

/// Named tokens and roles (SPEC §15.1) through the real modeld and modelctl: create, list and
/// revoke, roles on every admin route, the audit's actor and address, and revocation across
/// two replicas sharing one data directory.
@Suite struct NamedTokensTests {
    private static func modelctl(_ server: ModeldServer, _ arguments: [String], token: String? = nil) throws -> ProcessResult {
        try ChildProcess.run(TestBinaries.modelctl, arguments + ["--server", server.url, "--token", token ?? server.token])
    }

    private static func create(_ server: ModeldServer, _ name: String, _ role: String, _ extra: [String] = []) throws -> String {
        let r = try modelctl(server, ["tokens", "create", "--name", name, "--role", role, "--json"] + extra)
        #expect(r.status == 0, "\(r.stderr)")
        let o = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        #expect(Set(o.keys) == ["name", "role", "token", "expires"] && o["name"] as? String == name && o["role"] as? String == role)
        return try #require(o["token"] as? String)
    }

    private static func status(_ server: ModeldServer, _ method: String, _ path: String, token: String, body: String = "") throws -> (Int, String?) {
        let r = try HTTP.request(server.port, method, path, headers: [("Authorization", "Bearer \(token)")], body: Array(body.utf8))
        return (r.status, HTTP.json(r)?["error"] as? String)
    }

    private static func auditLines(_ server: ModeldServer) throws -> [[String: Any]] {
        let text = (try? String(contentsOf: server.dataDir.appendingPathComponent("audit.jsonl"), encoding: .utf8)) ?? ""
        return try text.split(separator: "\n").map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
    }

    @Test func tokens_createListRevoke_andEachRoleGetsWhatItMay_SPEC15_1() throws {
        let server = try ModeldServer()
        let id = try #require((HTTP.json(try HTTP.get(server.port, "/admin/models", headers: [("Authorization", "Bearer \(server.token)")]))?["releases"]
            as? [[String: Any]])?.first?["id"] as? String)
        let viewer = try Self.create(server, "vera", "viewer")
        let publisher = try Self.create(server, "paul", "publisher", ["--expires-days", "30"])
        #expect(viewer.utf8.count >= 32 && viewer != publisher)

        // tokens.json: 0600, the hashes only
        let file = server.dataDir.appendingPathComponent("tokens.json").path
        #expect(try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int == 0o600)
        let stored = try String(contentsOfFile: file, encoding: .utf8)
        let viewerHash = try SHA256Sum.of(Data(viewer.utf8))
        #expect(!stored.contains(viewer) && !stored.contains(publisher) && stored.contains(viewerHash))

        // viewer: reads; publisher: also changes releases; neither manages tokens
        let patch = #"{"rollout_percent":40}"#
        #expect(try Self.status(server, "GET", "/admin/models/\(id)", token: viewer).0 == 200)
        #expect(try Self.status(server, "PATCH", "/admin/models/\(id)", token: viewer, body: patch) == (403, "forbidden"))
        #expect(try Self.status(server, "DELETE", "/admin/models/\(id)", token: viewer) == (403, "forbidden"))
        #expect(try Self.status(server, "POST", "/admin/models?sdk_min=1.0", token: viewer, body: "x") == (403, "forbidden"))
        #expect(try Self.status(server, "GET", "/admin/tokens", token: viewer) == (403, "forbidden"))
        #expect(try Self.status(server, "PATCH", "/admin/models/\(id)", token: publisher, body: patch).0 == 200)
        #expect(try Self.status(server, "GET", "/admin/tokens", token: publisher) == (403, "forbidden"))
        #expect(try Self.status(server, "DELETE", "/admin/tokens/vera", token: publisher) == (403, "forbidden"))
        #expect(try Self.status(server, "GET", "/admin/models", token: "not-a-token").0 == 401)
        let refused = try Self.modelctl(server, ["pause", id], token: viewer)
        #expect(refused.status == 1 && refused.stderr.contains("403 forbidden"), "\(refused.stderr)")

        // the list: never a secret or a hash; a use shows as last_used once written back (≤ 0.5 s)
        var listed: [[String: Any]] = []
        let used = try ModeldServer.eventually(within: 5) {
            let r = try Self.modelctl(server, ["tokens", "list", "--json"])
            listed = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]])
            return listed.first { $0["name"] as? String == "vera" }?["last_used"] is String
        }
        #expect(used, "\(listed)")
        #expect(listed.map { $0["name"] as? String } == ["vera", "paul"])
        #expect(listed.allSatisfy { Set($0.keys) == ["name", "role", "created", "expires", "last_used"] })
        #expect(listed[1]["expires"] is String && listed[0]["expires"] is NSNull)
        let table = try Self.modelctl(server, ["tokens", "list"])
        #expect(table.status == 0 && table.stdout.contains("paul") && table.stdout.contains("publisher") && !table.stdout.contains(publisher))

        // names: in use, and `admin` (the configured token) → 409; bad ones are usage errors
        #expect(try Self.modelctl(server, ["tokens", "create", "--name", "vera", "--role", "admin"]).stderr.contains("409 id_in_use"))
        #expect(try Self.modelctl(server, ["tokens", "create", "--name", "admin", "--role", "admin"]).stderr.contains("409 id_in_use"))
        #expect(try Self.modelctl(server, ["tokens", "create", "--name", "a b", "--role", "admin"]).status == 2)
        #expect(try Self.modelctl(server, ["tokens", "create", "--name", "x", "--role", "root"]).status == 2)

        // revoked: refused at once on this replica
        let revoke = try Self.modelctl(server, ["tokens", "revoke", "vera"])
        #expect(revoke.status == 0 && revoke.stdout == "revoked vera\n", "\(revoke.stderr)")
        #expect(try Self.status(server, "GET", "/admin/models", token: viewer).0 == 401)
        #expect(try Self.modelctl(server, ["tokens", "revoke", "vera"]).stderr.contains("404 not_found"))

        // audit: every change with its actor and the client address
        let lines = try Self.auditLines(server)
        let rollout = try #require(lines.first { $0["action"] as? String == "rollout" })
        #expect(rollout["actor"] as? String == "paul" && rollout["peer"] as? String == "127.0.0.1" && rollout["release"] as? String == id)
        #expect(lines.contains { $0["action"] as? String == "token_create" && $0["token"] as? String == "paul" && $0["actor"] as? String == "admin" })
        #expect(lines.contains { $0["action"] as? String == "token_revoke" && $0["token"] as? String == "vera" })
        let audit = try String(contentsOf: server.dataDir.appendingPathComponent("audit.jsonl"), encoding: .utf8)
        #expect(!audit.contains(viewer) && !audit.contains(publisher) && !audit.contains(server.token))
    }

    @Test func signIns_signOuts_andFailures_areAudited_andAViewersSessionMayNotChange_SPEC15_1() throws {
        let server = try ModeldServer(environment: ["MODELD_CONSOLE_ENABLED": "true"])
        let viewer = try Self.create(server, "vic", "viewer")
        let form = [("Content-Type", "application/x-www-form-urlencoded")]
        #expect(try HTTP.request(server.port, "POST", "/console/login", headers: form, body: Array("token=wrong".utf8)).status == 401)
        // the failure slows this address for 200 ms: a correct token may be refused 429 until then
        var signIn = try HTTP.request(server.port, "POST", "/console/login", headers: form, body: Array("token=\(viewer)".utf8))
        _ = try ModeldServer.eventually(within: 5) {
            if signIn.status == 303 { return true }
            signIn = try HTTP.request(server.port, "POST", "/console/login", headers: form, body: Array("token=\(viewer)".utf8))
            return signIn.status == 303
        }
        #expect(signIn.status == 303)
        let cookie = ("Cookie", String(try #require(signIn.headers["Set-Cookie"]).prefix { $0 != ";" }))
        let page = try HTTP.get(server.port, "/console/", headers: [cookie]).text
        #expect(page.contains("Signed in as <strong>vic</strong> (viewer)") && !page.contains(#"id="publish""#))
        let csrf = String(try #require(page.firstMatch(of: /name="modeld-csrf" content="([0-9a-f]+)"/)?.1))
        let id = try #require((HTTP.json(try HTTP.get(server.port, "/admin/models", headers: [cookie]))?["releases"]
            as? [[String: Any]])?.first?["id"] as? String)
        let change = try HTTP.request(server.port, "PATCH", "/admin/models/\(id)", headers: [cookie, ("X-CSRF-Token", csrf)],
                                      body: Array(#"{"state":"paused"}"#.utf8))
        #expect(change.status == 403 && HTTP.json(change)?["error"] as? String == "forbidden")
        let releasePage = try HTTP.get(server.port, "/console/releases/\(id)", headers: [cookie]).text
        #expect(releasePage.contains("Release <code>") && !releasePage.contains(#"id="rollout""#) && !releasePage.contains("data-retire"))
        #expect(try HTTP.request(server.port, "POST", "/console/logout", headers: [cookie, ("X-CSRF-Token", csrf)]).status == 204)

        let lines = try Self.auditLines(server)
        let actions = lines.compactMap { $0["action"] as? String }
        #expect(actions.filter { $0.hasPrefix("sign") } == ["sign_in_failed", "sign_in", "sign_out"], "\(actions)")
        let failed = try #require(lines.first { $0["action"] as? String == "sign_in_failed" })
        #expect(failed["actor"] is NSNull && failed["peer"] as? String == "127.0.0.1")
        let session = try #require(lines.first { $0["action"] as? String == "sign_in" }?["session"] as? String)
        #expect(lines.contains { $0["action"] as? String == "sign_out" && $0["actor"] as? String == "vic" && $0["session"] as? String == session })
        // the audit view, filtered by actor
        let admin = try HTTP.request(server.port, "POST", "/console/login", headers: form, body: Array("token=\(server.token)".utf8))
        let adminCookie = ("Cookie", String(try #require(admin.headers["Set-Cookie"]).prefix { $0 != ";" }))
        let view = try HTTP.get(server.port, "/console/audit?actor=vic", headers: [adminCookie]).text
        #expect(view.contains("sign_out") && view.contains("sign_in") && !view.contains("token_create"))
    }

    @Test func aRevocationOnOneReplica_isInForceOnTheOtherWithin2s_SPEC15_1() throws {
        let a = try ModeldServer(environment: ["MODELD_CONSOLE_ENABLED": "true"])
        let b = try ModeldServer(environment: ["MODELD_CONSOLE_ENABLED": "true"], root: a.root, models: a.modelsDir)
        // created on A, or offline in the shared data directory: B takes either within 2 s
        let secret = try Self.create(a, "rita", "publisher")
        #expect(try ModeldServer.eventually(within: 2) { try Self.status(b, "GET", "/admin/models", token: secret).0 == 200 })
        let offline = try ChildProcess.run(TestBinaries.modelctl, ["tokens", "create", "--name", "olga", "--role", "viewer", "--json",
                                                                   "--data-dir", a.dataDir.path])
        let olga = try #require(try JSONSerialization.jsonObject(with: Data(offline.stdout.utf8)) as? [String: Any])["token"] as? String
        #expect(try ModeldServer.eventually(within: 2) { try Self.status(b, "GET", "/admin/models", token: olga ?? "").0 == 200 })
        // a console session on B opened with the token
        let signIn = try HTTP.request(b.port, "POST", "/console/login", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                                      body: Array("token=\(secret)".utf8))
        let cookie = ("Cookie", String(try #require(signIn.headers["Set-Cookie"]).prefix { $0 != ";" }))
        #expect(try HTTP.get(b.port, "/console/events", headers: [cookie]).status == 200)

        #expect(try Self.modelctl(a, ["tokens", "revoke", "rita"]).status == 0)
        let revoked = Date()
        let refused = try ModeldServer.eventually(within: 2) { try Self.status(b, "GET", "/admin/models", token: secret).0 == 401 }
        let took = Date().timeIntervalSince(revoked)
        #expect(refused, "B still accepts the revoked token after \(took) s")
        #expect(try HTTP.get(b.port, "/console/events", headers: [cookie]).status == 401, "the session ends with its token")
        #expect(try Self.status(b, "GET", "/admin/models", token: olga ?? "").0 == 200)
        let offlineRevoke = try ChildProcess.run(TestBinaries.modelctl, ["tokens", "revoke", "olga", "--data-dir", a.dataDir.path])
        #expect(offlineRevoke.status == 0)
        #expect(try ModeldServer.eventually(within: 2) { try Self.status(a, "GET", "/admin/models", token: olga ?? "").0 == 401 })
    }
}

#if canImport(Glibc)
import Glibc
#endif
import Foundation
import AccessTokens
@testable import GuardRuntime
import Guardrails
import HTTPServer
import HTTPWire
@testable import ModelCatalog
@testable import ModeldCore
import ModeldConfig
import Testing

/// In-process table tests of the routes (issue 19 item 6): a request head goes in, status,
/// headers and body come out — no sockets, no server. The integration suites cover the wire.
private struct Fixture {
    let dir: String
    let store: CatalogStore
    let holder = CatalogHolder()

    static let t0 = Timestamp(rfc3339: "2026-11-21T10:00:00.000Z")!
    static let sha = String(repeating: "ab", count: 32)
    static let plain = "00000000-0000-4000-8000-000000000001"
    static let newer = "00000000-0000-4000-8000-000000000002"
    static let beta = "00000000-0000-4000-8000-000000000003"
    static let guarded = "00000000-0000-4000-8000-000000000004"

    init() throws {
        var template = Array("/tmp/modeldcore-route-XXXXXX".utf8CString)
        dir = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
        store = CatalogStore(directory: dir, publicBaseURL: "http://cdn.example")
        try FileManager.default.createDirectory(atPath: dir + "/data", withIntermediateDirectories: true)
        let plan = try GuardPlan(json: Array(#"{"metric":{"name":"upsell","outcome":"purchased"}}"#.utf8)).started(at: Self.t0)
        let releases = [
            try Release(id: Self.plain, seq: 1, ext: "onnx", sha256: Self.sha, size: 100, sdkMin: "1.0", sdkMax: "1.9.999999",
                        publishedAt: Self.t0),
            try Release(id: Self.newer, seq: 2, ext: "onnx", sha256: Self.sha, size: 200, sdkMin: "2.0", publishedAt: Self.t0),
            try Release(id: Self.beta, seq: 3, ext: "onnx", sha256: Self.sha, size: 300, sdkMin: "1.0", channel: "beta",
                        publishedAt: Self.t0),
            try Release(id: Self.guarded, seq: 4, ext: "onnx", sha256: Self.sha, size: 400, sdkMin: "5.0", rolloutPercent: 1,
                        publishedAt: Self.t0, guardPlan: plan),
        ]
        // Only the first release's file exists: a file that cannot be opened is not served.
        guard FileManager.default.createFile(atPath: dir + "/" + Self.plain + ".onnx", contents: Data(repeating: 7, count: 100)) else {
            throw CocoaError(.fileWriteUnknown)
        }
        let catalog = try Catalog(releases: releases, catalogVersion: 7, publicBaseURL: "http://cdn.example")
        holder.install(ServedCatalog(catalog: catalog, store: store))
    }

    func remove() { try? FileManager.default.removeItem(atPath: dir) }

    var latest: LatestResponder { LatestResponder(catalog: holder, maxAgeSeconds: 60) }

    func admin(token: String? = "s3cret") -> AdminResponder {
        AdminResponder(credentials: token.map { Credentials(adminToken: AdminToken($0), named: TokenCache(store: TokenStore(dataDir: dir + "/data"))) },
                       audit: AuditLog(path: dir + "/data/audit.jsonl"), clientAddress: ClientAddress(trusted: []), store: store, catalog: holder,
                       watcher: CatalogWatcher(store: store, onChange: { _ in }, onError: { _ in }),
                       metrics: Metrics(version: "test"), instance: "test", maxUploadBytes: 1 << 20, dataDir: dir + "/data", console: nil)
    }
}

private func head(_ method: String, _ target: String, _ headers: HTTPFields = [:]) -> RequestHead {
    let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
    return RequestHead(method: method, path: String(parts[0]), query: parts.count > 1 ? String(parts[1]) : "", headers: headers)
}

private func body(_ r: Response) -> [UInt8] {
    r.parts.flatMap { part -> [UInt8] in
        guard case .bytes(let b) = part else { return [] }
        return b
    }
}

private func object(_ bytes: [UInt8]) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
}

private func errorCode(_ r: Response) throws -> String? {
    try object(body(r))["error"] as? String   // SPEC §10: {"error":code,"message":text}
}

@Suite struct RouteTableTests {
    // MARK: AcceptEncoding (RFC 9110 §12.5.3)

    @Test(arguments: [
        (nil, false), ("", false), ("gzip", true), ("GZIP", true), ("x-gzip", true), ("deflate, gzip", true),
        ("gzip;q=0", false), ("gzip; q=0.0", false), ("gzip;q=0.5", true), ("*", true), ("*;q=0", false),
        ("br", false), ("*, gzip;q=0", false), ("gzip;q=0, *", false), ("identity, *;q=0.1", true),
    ] as [(String?, Bool)])
    func acceptEncoding_gzipOnlyWhenListedWithoutQZero(value: String?, gzip: Bool) {
        #expect(AcceptEncoding.allowsGzip(value) == gzip, "\(value ?? "nil")")
    }

    // MARK: LatestResponder (SPEC §4.1, §10)

    struct LatestCase: Sendable, CustomTestStringConvertible {
        var target: String
        var status: Int
        var id: String? = nil
        var code: String? = nil
        var testDescription: String { target }
    }

    @Test(arguments: [
        LatestCase(target: "/latest?sdk=1.5", status: 200, id: Fixture.plain),
        LatestCase(target: "/latest?sdk=2", status: 200, id: Fixture.newer),
        LatestCase(target: "/latest?sdk=1.5&channel=beta", status: 200, id: Fixture.beta),
        LatestCase(target: "/latest_model_details.json?sdk=1.5", status: 200, id: Fixture.plain),
        LatestCase(target: "/latest?sdk=0.9", status: 404, code: "no_model"),
        LatestCase(target: "/latest?sdk=1.5&channel=nightly", status: 404, code: "no_model"),
        LatestCase(target: "/latest", status: 400, code: "invalid_sdk"),
        LatestCase(target: "/latest?sdk=1.x", status: 400, code: "invalid_sdk"),
        LatestCase(target: "/latest?sdk=1000000", status: 400, code: "invalid_sdk"),
        LatestCase(target: "/latest?sdk=1.5&channel=Bad!", status: 400, code: "invalid_parameter"),
        LatestCase(target: "/latest?sdk=1.5&client_id=", status: 400, code: "invalid_parameter"),
        LatestCase(target: "/latest?sdk=1.5&ram_mb=lots", status: 400, code: "invalid_parameter"),
        LatestCase(target: "/latest_model_details.json?channel=Bad!", status: 400, code: "invalid_parameter"),
    ])
    func latest_table(_ c: LatestCase) throws {
        let f = try Fixture()
        defer { f.remove() }
        // The two routes of the table, each with its own handler.
        let h = head("GET", c.target)
        let r = h.path == "/latest_model_details.json" ? f.latest.respondDetails(h) : f.latest.respond(h)
        #expect(r.status == c.status)
        if let id = c.id {
            #expect(try object(body(r))["id"] as? String == id)
            #expect(r.headers["Content-Type"] == "application/json")
            #expect(r.headers["Cache-Control"] == "public, max-age=60")
            #expect(r.headers["Vary"] == "Accept-Encoding")
            #expect(r.headers["ETag"]?.hasPrefix("\"") == true)
        }
        if let code = c.code {
            #expect(try errorCode(r) == code)
            #expect(r.headers["Cache-Control"] == "no-store")
        }
    }

    @Test func latest_gzipHasItsOwnETag_and304OnlyForTheMatchingOne() throws {
        let f = try Fixture()
        defer { f.remove() }
        let identity = f.latest.respond(head("GET", "/latest?sdk=1.5"))
        let gzip = f.latest.respond(head("GET", "/latest?sdk=1.5", ["Accept-Encoding": "gzip"]))
        #expect(gzip.status == 200)
        #expect(gzip.headers["Content-Encoding"] == "gzip")
        #expect(identity.headers["Content-Encoding"] == nil)
        #expect(try Gzip.inflate(body(gzip), limit: 1 << 20) == body(identity))
        let identityTag = try #require(identity.headers["ETag"])
        let gzipTag = try #require(gzip.headers["ETag"])
        #expect(identityTag != gzipTag)

        let hit = f.latest.respond(head("GET", "/latest?sdk=1.5", ["If-None-Match": identityTag]))
        #expect(hit.status == 304)
        #expect(body(hit).isEmpty)
        #expect(hit.headers["ETag"] == identityTag)
        // The identity tag does not validate the gzip representation.
        let miss = f.latest.respond(head("GET", "/latest?sdk=1.5", ["If-None-Match": identityTag, "Accept-Encoding": "gzip"]))
        #expect(miss.status == 200)
        #expect(f.latest.respond(head("GET", "/latest?sdk=1.5", ["If-None-Match": "*"])).status == 304)
    }

    @Test func latestDetails_withoutSdk_isTheDerivedFile() throws {
        let f = try Fixture()
        defer { f.remove() }
        let r = f.latest.respondDetails(head("GET", "/latest_model_details.json"))
        #expect(r.status == 200)
        #expect(body(r) == f.holder.served.details.identity)
        #expect(r.headers["ETag"] == f.holder.served.details.identityETag)
    }

    // MARK: ServedCatalog

    @Test func servedCatalog_preparesBothEncodings_andServesOnlyOpenableFiles() throws {
        let f = try Fixture()
        defer { f.remove() }
        let served = f.holder.served
        #expect(served.catalogVersion == 7)
        // Every catalog file has an entry; only the one that exists opens (on first use).
        #expect(served.files.count == 4)
        #expect(served.files.filter { $0.value.cell.open != nil }.map(\.key) == [Fixture.plain + ".onnx"])
        let file = try #require(served.files[Fixture.plain + ".onnx"])
        #expect(file.representation.etag == "\"\(Fixture.sha)\"")
        #expect(file.representation.size == 100)
        #expect(file.cell.open === file.cell.open, "opened once, then kept")
        // Every answer the selection can give has a cell (the guarded release's too), prepared
        // on first use with both encodings.
        #expect(served.answerKeys.count == 4)
        for (sdk, channel) in [("1.0", "stable"), ("2.0", "stable"), ("1.0", "beta")] {
            let a = try #require(served.answer(sdk: SDKVersion(sdk)!, channel: channel, clientID: nil, device: .none))
            let body = a.body
            #expect(try Gzip.inflate(body.gzip, limit: 1 << 20) == body.identity)
            #expect(body.identityETag == GeneratedBodyETag.of(body.identity))
            #expect(body.gzipETag == GeneratedBodyETag.of(body.gzip))
            #expect(body.stamp == nil)
            #expect(a.body.prepared === served.answer(sdk: SDKVersion(sdk)!, channel: channel, clientID: nil, device: .none)?.body.prepared)
        }
        #expect(ServedCatalog.empty.answerKeys.isEmpty)
        #expect(ServedCatalog.empty.files.isEmpty)
    }

    /// SPEC §17.1: a reload takes over what the previous version prepared for releases it did
    /// not change (bodies, open files) and prepares afresh only what changed.
    @Test func servedCatalog_reloadKeepsWhatDidNotChange() throws {
        let f = try Fixture()
        defer { f.remove() }
        let old = f.holder.served
        let stable = try #require(old.answer(sdk: SDKVersion("1.0")!, channel: "stable", clientID: nil, device: .none))
        let beta = try #require(old.answer(sdk: SDKVersion("1.0")!, channel: "beta", clientID: nil, device: .none))
        let fd = try #require(old.files[Fixture.plain + ".onnx"]?.cell.open)
        var catalog = old.snapshot.catalog
        _ = try catalog.apply(ReleasePatch(label: "relabelled"), to: Fixture.beta, now: Fixture.t0)
        let new = ServedCatalog(catalog: catalog, store: f.store, previous: old)
        let stable2 = try #require(new.answer(sdk: SDKVersion("1.0")!, channel: "stable", clientID: nil, device: .none))
        let beta2 = try #require(new.answer(sdk: SDKVersion("1.0")!, channel: "beta", clientID: nil, device: .none))
        #expect(stable2.body.prepared === stable.body.prepared, "unchanged release: the same prepared body")
        #expect(beta2.body.prepared !== beta.body.prepared)
        #expect(String(decoding: beta2.body.identity, as: UTF8.self).contains("relabelled"))
        #expect(new.files[Fixture.plain + ".onnx"]?.cell.open === fd, "the open descriptor is kept")
    }

    /// The files table is the previous one patched: a release gone from the catalog (one
    /// restored from elsewhere) and a collected file leave it, a new release's file joins, and
    /// every other entry is the one the previous version had.
    @Test func servedCatalog_reloadPatchesTheFilesTable() throws {
        let f = try Fixture()
        defer { f.remove() }
        let old = f.holder.served
        #expect(Set(old.files.keys) == Set([Fixture.plain, Fixture.newer, Fixture.beta, Fixture.guarded].map { $0 + ".onnx" }))
        var releases = old.snapshot.catalog.releases.filter { $0.id != Fixture.newer }
        releases[1] = try Release(id: Fixture.beta, seq: 3, ext: "onnx", sha256: Fixture.sha, size: 300, sdkMin: "1.0", channel: "beta",
                                  state: .retired, publishedAt: Fixture.t0, retiredAt: Fixture.t0, fileDeletedAt: Fixture.t0)   // collected
        let added = "00000000-0000-4000-8000-000000000005"
        releases.append(try Release(id: added, seq: 5, ext: "bin", sha256: Fixture.sha, size: 5, sdkMin: "1.0", channel: "other", publishedAt: Fixture.t0))
        let catalog = try Catalog(releases: releases, nextSeq: 6, catalogVersion: 8, publicBaseURL: "http://cdn.example")
        let new = ServedCatalog(catalog: catalog, store: f.store, previous: old)
        #expect(Set(new.files.keys) == Set([Fixture.plain + ".onnx", Fixture.guarded + ".onnx", added + ".bin"]))
        #expect(new.files[Fixture.plain + ".onnx"]?.cell === old.files[Fixture.plain + ".onnx"]?.cell)
        #expect(new.files[added + ".bin"]?.release.id == added)
        #expect(old.files.count == 4, "the previous version is not changed")
        // From nothing, the same table.
        #expect(Set(ServedCatalog(catalog: catalog, store: f.store).files.keys) == Set(new.files.keys))
    }

    // MARK: Router.table (SPEC §4, §7.1, §15)

    struct RoutingCase: Sendable, CustomTestStringConvertible {
        var method: String
        var path: String
        var expect: Expectation
        var testDescription: String { "\(method) \(path)" }

        enum Expectation: Sendable, Equatable {
            case route(String, parameters: [String] = [])
            case notAllowed(allow: String)
            case notFound
        }
    }

    private static let id = Fixture.plain

    @Test(arguments: [
        RoutingCase(method: "GET", path: "/latest", expect: .route("/latest")),
        RoutingCase(method: "HEAD", path: "/latest", expect: .route("/latest")),
        RoutingCase(method: "PUT", path: "/latest", expect: .notAllowed(allow: "GET, HEAD, POST")),
        RoutingCase(method: "get", path: "/latest", expect: .notAllowed(allow: "GET, HEAD, POST")),
        RoutingCase(method: "GET", path: "/latest/", expect: .notFound),
        RoutingCase(method: "GET", path: "/models/a/../b", expect: .route("/models/{file...}", parameters: ["a/../b"])),
        RoutingCase(method: "GET", path: "/models/", expect: .route("/models/{file...}", parameters: [""])),
        RoutingCase(method: "GET", path: "/models", expect: .notFound),
        RoutingCase(method: "GET", path: "//models/x", expect: .notFound),
        RoutingCase(method: "GET", path: "/admin/models", expect: .route("/admin/models")),
        RoutingCase(method: "PUT", path: "/admin/models", expect: .notAllowed(allow: "GET, HEAD, POST")),
        RoutingCase(method: "POST", path: "/admin/models", expect: .route("/admin/models")),
        RoutingCase(method: "GET", path: "/admin/models/", expect: .route("/admin/models/{rest...}", parameters: [""])),
        RoutingCase(method: "GET", path: "/admin/modelsX", expect: .notFound),
        RoutingCase(method: "GET", path: "/admin/models/\(id)", expect: .route("/admin/models/{id}", parameters: [id])),
        RoutingCase(method: "PATCH", path: "/admin/models/\(id)", expect: .route("/admin/models/{id}", parameters: [id])),
        RoutingCase(method: "DELETE", path: "/admin/models/\(id)", expect: .route("/admin/models/{id}", parameters: [id])),
        RoutingCase(method: "POST", path: "/admin/models/\(id)", expect: .notAllowed(allow: "GET, HEAD, PATCH, DELETE")),
        RoutingCase(method: "GET", path: "/admin/models/\(id)/guard", expect: .route("/admin/models/{id}/guard", parameters: [id])),
        RoutingCase(method: "POST", path: "/admin/models/\(id)/guard", expect: .notAllowed(allow: "GET, HEAD, DELETE")),
        RoutingCase(method: "POST", path: "/admin/models/\(id)/variants", expect: .route("/admin/models/{id}/variants", parameters: [id])),
        RoutingCase(method: "GET", path: "/admin/models/\(id)/variants", expect: .notAllowed(allow: "POST")),
        RoutingCase(method: "DELETE", path: "/admin/models/\(id)/variants/small",
                    expect: .route("/admin/models/{id}/variants/{name}", parameters: [id, "small"])),
        RoutingCase(method: "GET", path: "/admin/models/\(id)/variants/small", expect: .notAllowed(allow: "DELETE")),
        RoutingCase(method: "DELETE", path: "/admin/models/\(id)/variants/",
                    expect: .route("/admin/models/{rest...}", parameters: ["\(id)/variants/"])),
        RoutingCase(method: "PUT", path: "/admin/models/\(id)/other", expect: .route("/admin/models/{rest...}", parameters: ["\(id)/other"])),
        RoutingCase(method: "GET", path: "/admin/models/\(id)/guard/x", expect: .route("/admin/models/{rest...}", parameters: ["\(id)/guard/x"])),
        RoutingCase(method: "BREW", path: "/console", expect: .route("/console")),
        RoutingCase(method: "GET", path: "/console/login", expect: .notAllowed(allow: "POST")),
        RoutingCase(method: "GET", path: "/console/releases/\(id)/live", expect: .route("/console/releases/{id}/live", parameters: [id])),
        RoutingCase(method: "GET", path: "/console/releases/", expect: .route("/console/{page...}", parameters: ["releases/"])),
        RoutingCase(method: "POST", path: "/console/nowhere", expect: .notAllowed(allow: "GET, HEAD")),
        RoutingCase(method: "GET", path: "/nowhere", expect: .notFound),
    ])
    func routerTable_matchesThePathThenTheMethod(_ c: RoutingCase) throws {
        switch (Router.table.match(method: c.method, path: c.path), c.expect) {
        case (.found(let route, _, let parameters), .route(let pattern, let expected)):
            #expect(route.pattern.description == pattern)
            #expect(parameters.map(String.init) == expected)
        case (.notAllowed(let route), .notAllowed(let allow)):
            #expect(route.allow == allow)
            let r = route.notAllowed()
            #expect(r.status == 405 && r.headers["Allow"] == allow && r.headers["Cache-Control"] == "no-store")
            #expect(try errorCode(r) == "method_not_allowed")
        case (.notFound, .notFound): break
        case (let got, _): Issue.record("\(c.testDescription): got \(got)")
        }
    }

    /// Routes that read files are answered off the loop (issue 26): the guard's, the signed
    /// metadata, the console's views of event segments, the access log and guard files.
    @Test(arguments: [
        ("GET", "/admin/models/\(Fixture.plain)/guard"), ("DELETE", "/admin/models/\(Fixture.plain)"),
        ("DELETE", "/admin/models/\(Fixture.plain)/variants/small"), ("GET", "/console/releases/\(Fixture.plain)/live"),
        ("DELETE", "/admin/models/\(Fixture.plain)/guard"),
        ("GET", "/console/releases/\(Fixture.plain)"), ("GET", "/console/events"), ("GET", "/console/cost"), ("GET", "/console/audit"),
        ("GET", "/admin/tokens"), ("DELETE", "/admin/tokens/ci"), ("POST", "/console/logout"),
        ("GET", "/rules/stable.sig.json"), ("GET", "/details/1.json"), ("GET", "/latest_model_details.sig.json"),
    ])
    func routerTable_routesThatReadFiles_block(method: String, path: String) {
        guard case .found(_, .blocking, _) = Router.table.match(method: method, path: path) else {
            Issue.record("\(method) \(path) is answered on the loop")
            return
        }
    }

    /// SPEC §15.1: every admin route names its least role in the table: viewers read releases,
    /// publishers change them, only admins reach the tokens; nothing else is an admin route.
    @Test func routerTable_everyAdminRouteNamesItsRoles_SPEC15_1() {
        for route in Router.table.routes {
            let pattern = route.pattern.description
            switch (pattern.hasPrefix("/admin/tokens"), pattern.hasPrefix("/admin/"), route.access) {
            case (true, _, .admin(let read, let change)): #expect(read == .admin && change == .admin, "\(pattern)")
            case (false, true, .admin(let read, let change)): #expect(read == .viewer && change == .publisher, "\(pattern)")
            case (_, true, let access): Issue.record("\(pattern) is an admin path without roles: \(access)")
            case (_, false, .admin): Issue.record("\(pattern) needs a token but is no admin path")
            case (_, false, _): break
            }
        }
    }

    @Test func admin_show_unknownRelease_is404() throws {
        let f = try Fixture()
        defer { f.remove() }
        let r = f.admin().show("00000000-0000-4000-8000-000000000099")
        #expect(r.status == 404 && r.headers["Cache-Control"] == "no-store")
        #expect(try errorCode(r) == "not_found")
        #expect(f.admin().show(Fixture.plain).status == 200)
        #expect(f.admin().guardStatus(Fixture.guarded).status == 200)
        #expect(f.admin().guardStatus(Fixture.plain).status == 404)
    }

    @Test func admin_list_namesTheServedCatalogVersion() throws {
        let f = try Fixture()
        defer { f.remove() }
        let o = try object(body(f.admin().list()))
        #expect(o["catalog_version"] as? Int == 7)
        #expect((o["releases"] as? [[String: Any]])?.compactMap { $0["id"] as? String }
                == [Fixture.plain, Fixture.newer, Fixture.beta, Fixture.guarded])
    }

    // MARK: GuardStatusDocument (SPEC §11.5)

    @Test func guardStatus_beforeAnyEvaluation_hasThePlanFiguresAndNoDecisions() throws {
        let f = try Fixture()
        defer { f.remove() }
        let bytes = try GuardStatusDocument.json(id: Fixture.guarded, in: f.holder.served.snapshot.catalog, dataDir: f.dir + "/data")
        let o = try object(bytes)
        #expect(o["release"] as? String == Fixture.guarded)
        #expect(o["status"] as? String == "collecting")
        #expect(o["stage"] as? Int == 1)
        #expect(o["stage_started_at"] as? String == "2026-11-21T10:00:00.000Z")
        #expect(o["pending_clients"] as? Int == 0)
        #expect((o["decisions"] as? [Any])?.isEmpty == true)
        // The server's document decodes as the one §11.5 type modelctl reads.
        let status = try GuardStatusDocument.Content(json: bytes)
        #expect(status.release == Fixture.guarded && status.stage == 1 && status.evaluatedAt == nil && status.delta == nil)
        #expect(status.arms["treatment"]?.clients == 0 && status.arms["control"]?.mean == nil && status.decisions.isEmpty)
    }

    /// A complete document minus one key: the keys the SPEC always writes are refused by name,
    /// the legitimately absent one is not.
    @Test(arguments: [
        ("release", "missing key release"), ("status", "missing key status"), ("stage", "missing key stage"),
        ("stage_started_at", "missing key stage_started_at"), ("arms", "missing key arms"), ("delta", "missing key delta"),
        ("bound", "missing key bound"), ("alpha", "missing key alpha"), ("tuning_clients", "missing key tuning_clients"),
        ("pending_clients", "missing key pending_clients"), ("decisions", "missing key decisions"), ("evaluated_at", nil),
    ] as [(String, String?)])
    func guardStatus_decodedFixtureMissingAKey(key: String, message: String?) throws {
        var fields: [(String, String)] = [
            ("release", #""\#(Fixture.guarded)""#), ("status", #""collecting""#), ("stage", "10"), ("stage_started_at", "null"),
            ("evaluated_at", #""2026-11-21T10:00:00.000Z""#),
            ("arms", #"{"treatment":{"clients":1,"mean":1.0,"variance":0},"control":{"clients":0,"mean":null,"variance":null}}"#),
            ("delta", "null"), ("bound", "null"), ("alpha", "0.05"), ("tuning_clients", "1000"), ("pending_clients", "0"),
            ("decisions", #"[{"ts":"2026-11-21T10:00:00.000Z","release":"\#(Fixture.guarded)","rule":"manual_override","stage":10,"next_stage":null}]"#),
        ]
        fields.removeAll { $0.0 == key }
        let json = Array(("{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}").utf8)
        if let message {
            #expect(throws: GuardStatusDocument.Content.Invalid(message: message)) { try GuardStatusDocument.Content(json: json) }
        } else {
            let status = try GuardStatusDocument.Content(json: json)
            #expect(status.evaluatedAt == nil && status.decisions.first?.nextStage == nil && status.decisions.first?.arms == nil)
        }
    }

    @Test func guardStatus_aDecisionWithoutItsRule_orAnArmWithoutClients_isRefused() {
        let arms = #""arms":{"treatment":{"clients":1,"mean":1.0,"variance":0},"control":{"clients":0,"mean":null,"variance":null}}"#
        let head = #"{"release":"r","status":"collecting","stage":10,"stage_started_at":null,\#(arms),"delta":null,"bound":null,"alpha":0.05,"tuning_clients":1000,"pending_clients":0,"decisions":"#
        #expect(throws: GuardStatusDocument.Content.Invalid(message: "missing key decisions.[0].rule")) {
            try GuardStatusDocument.Content(json: Array((head + #"[{"ts":"t","release":"r","stage":10,"next_stage":null}]}"#).utf8))
        }
        let noClients = head.replacingOccurrences(of: #"{"clients":0,"mean":null"#, with: #"{"mean":null"#) + "[]}"
        #expect(throws: GuardStatusDocument.Content.Invalid(message: "missing key arms.control.clients")) { try GuardStatusDocument.Content(json: Array(noClients.utf8)) }
        #expect(throws: GuardStatusDocument.Content.Invalid(message: "stage is not Int")) {
            try GuardStatusDocument.Content(json: Array(head.replacingOccurrences(of: #""stage":10"#, with: #""stage":"10""#).utf8 + Array("[]}".utf8)))
        }
    }

    @Test func guardStatus_mergesTheStateFile_andTheLastDecisions() throws {
        let f = try Fixture()
        defer { f.remove() }
        let records = GuardRecords(dataDir: f.dir + "/data")
        let plan = try #require(f.holder.served.snapshot.catalog.release(id: Fixture.guarded)?.guardPlan)
        try records.writeState(Fixture.guarded, GuardRecords.state(figures: GuardFigures(plan: plan, arms: GuardAccumulator(), settledCohorts: 0), pendingClients: 3, at: 1_763_719_200_000))
        let o = try object(try GuardStatusDocument.json(id: Fixture.guarded, in: f.holder.served.snapshot.catalog, dataDir: f.dir + "/data"))
        #expect(o["pending_clients"] as? Int == 3)
        #expect(o["evaluated_at"] as? String == "2025-11-21T10:00:00.000Z")
        #expect(o["release"] as? String == Fixture.guarded)
        let status = try GuardStatusDocument.Content(json: try GuardStatusDocument.json(id: Fixture.guarded, in: f.holder.served.snapshot.catalog, dataDir: f.dir + "/data"))
        #expect(status.pendingClients == 3 && status.evaluatedAt == "2025-11-21T10:00:00.000Z" && status.tuningClients > 0)
    }

    /// A state file that exists but cannot be read (here a directory: EISDIR) is an error — 503
    /// from the server — never the "not evaluated yet" document.
    @Test func guardStatus_unreadableStateFile_isAnError_not_aFreshDocument() throws {
        let f = try Fixture()
        defer { f.remove() }
        let records = GuardRecords(dataDir: f.dir + "/data")
        try FileManager.default.createDirectory(atPath: records.statePath(Fixture.guarded), withIntermediateDirectories: true)
        #expect(throws: GuardStatusDocument.Failure.self) {
            try GuardStatusDocument.json(id: Fixture.guarded, in: f.holder.served.snapshot.catalog, dataDir: f.dir + "/data")
        }
        let r = f.admin().guardStatus(Fixture.guarded)
        #expect(r.status == 503 && r.headers["Retry-After"] == "5")
        #expect(try errorCode(r) == "unavailable")
    }

    @Test func guardStatus_unknownOrUnguarded_isAFailureNamingTheRelease() throws {
        let f = try Fixture()
        defer { f.remove() }
        let catalog = f.holder.served.snapshot.catalog
        #expect(throws: GuardStatusDocument.Failure.noGuard(Fixture.plain)) {
            try GuardStatusDocument.json(id: Fixture.plain, in: catalog, dataDir: f.dir)
        }
        let unknown = "00000000-0000-4000-8000-000000000099"
        #expect(throws: GuardStatusDocument.Failure.unknownRelease(unknown)) {
            try GuardStatusDocument.json(id: unknown, in: catalog, dataDir: f.dir)
        }
    }
}

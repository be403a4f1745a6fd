import AccessTokens
import BinaryText
import Console
import GuardRuntime
import Guardrails
import HTTPServer
import HTTPWire
import JSONSupport
import ModelCatalog
import ModeldConfig

/// The admin API (SPEC §7.1): bearer-token protected publishing and release management.
/// Without a configured admin token every admin path is 404 (secure by default). A named token
/// opens it too, as far as its role goes (SPEC §15.1); with the console on, so does a console
/// session (cookie + `X-CSRF-Token` for changes): the console's actions are calls to this API,
/// so they share its code. Every change is audited under its caller.
struct AdminResponder: Sendable {
    /// nil: no admin token is configured, the API is off.
    let credentials: Credentials?
    let audit: AuditLog
    /// The address each change is audited under (`trusted_proxies`, as the console's sign-in).
    let clientAddress: ClientAddress
    let store: CatalogStore
    let catalog: CatalogHolder
    let watcher: CatalogWatcher
    let metrics: Metrics
    let instance: String
    let maxUploadBytes: Int64
    /// Where the guard evaluator keeps its state and decisions (SPEC §11.4).
    let dataDir: String
    /// nil: the console is off, only bearer tokens open the API.
    let console: ConsoleAccess?

    static let collection = "/admin/models"

    // MARK: authorization

    /// A bearer token (the configured admin token or a named one), or a live console session
    /// (with its CSRF token for a change), whose role is at least `role` (else 403 `forbidden`).
    /// The caller comes back with the address its changes are audited under. Without a
    /// configured admin token every admin path is 404.
    func authorize(_ head: RequestHead, _ exchange: Exchange, needs role: Role) -> Result<Caller, Refusal> {
        guard let credentials else { return .failure(Refusal(response: Router.notFound)) }
        let caller: Caller
        let address = clientAddress.of(head, peer: exchange.peer)
        if let offered = AdminToken.bearer(head.headers["Authorization"]) {
            guard let principal = credentials.principal(for: offered, nowMillis: Timestamp.now().millisecondsSinceEpoch) else {
                return .failure(Self.unauthorized)
            }
            caller = Caller(principal: principal, session: nil, address: address, audit: audit)
        } else if let console, let session = console.session(head) {
            if ConsoleAccess.needsCSRF(head.method), let refusal = ConsoleAccess.refusal(head, session) {
                return .failure(Refusal(response: refusal))
            }
            caller = Caller(principal: session.principal, session: session.handle, address: address, audit: audit)
        } else {
            return .failure(Self.unauthorized)
        }
        guard caller.principal.role >= role else {
            return .failure(Refusal(response: Response.error(
                403, "forbidden", "the token \(caller.principal.name) has the role \(caller.principal.role.rawValue); this needs \(role.rawValue)")))
        }
        return .success(caller)
    }

    private static let unauthorized: Refusal = {
        var r = Response.error(401, "unauthorized", "missing or wrong bearer token")
        r.headers.append("WWW-Authenticate", "Bearer")
        return Refusal(response: r)
    }()

    // MARK: routes

    /// `{"catalog_version":N,"releases":[…]}`: the served catalog's version says which state
    /// the list shows (SPEC §12).
    func list() -> Response {
        let served = catalog.served.snapshot
        var w = JSONWriter(capacity: 4096)
        w.beginObject()
        w.field("catalog_version", served.catalog.catalogVersion)
        w.field("public_base_url", served.publicBaseURL)
        w.key("releases")
        w.beginArray()
        for r in served.catalog.releases { w.raw(r.adminJSON(publicBaseURL: served.publicBaseURL)) }
        w.endArray()
        w.endObject()
        return json(200, w.bytes)
    }

    func show(_ id: String) -> Response {
        let served = catalog.served.snapshot
        guard let r = served.catalog.release(id: id) else {
            return Response.error(404, "not_found", "no release \(id)")
        }
        return json(200, r.adminJSON(publicBaseURL: served.publicBaseURL, catalogVersion: served.catalog.catalogVersion), revision: r.revision)
    }

    /// `GET /admin/live[?channel=C]` (SPEC §15.1): what the served catalog answers now, per
    /// channel and SDK range. A valid channel without releases is listed with no range.
    func live(_ head: RequestHead) -> Response {
        let channel: String?
        do throws(CatalogError) {
            channel = try Self.parameters(head)["channel"]
            try channel.map { (c: String) throws(CatalogError) in try Release.validateChannel(c) }
        } catch {
            return Self.errorResponse(error)
        }
        return json(200, LiveView(catalog.served.snapshot.catalog.releases, only: channel).json)
    }

    /// `GET /admin/models/ID/guard` (SPEC §11.5), answered from the files any replica can read.
    func guardStatus(_ id: String) -> Response {
        do throws(GuardStatusDocument.Failure) {
            return json(200, try GuardStatusDocument.json(id: id, in: catalog.served.snapshot.catalog, dataDir: dataDir))
        } catch .unreadable(let error) {
            return Self.errorResponse(error)
        } catch {
            return Response.error(404, "not_found", error.message)
        }
    }

    func publish(_ head: RequestHead, _ exchange: Exchange, _ caller: Caller) -> HeadDecision {
        let request: PublishRequest
        do throws(CatalogError) {
            request = try PublishRequest(parameters: try Self.parameters(head))
        } catch {
            return .respond(Self.errorResponse(error))
        }
        // Everything decidable from the head is answered before a byte of the body is read.
        do throws(CatalogError) { try request.precheck(against: catalog.served.snapshot.catalog) } catch {
            return .respond(Self.errorResponse(error))
        }
        return upload(head, exchange, (caller, "publish", nil)) { [self] (upload) throws(CatalogError) in
            let release = try store.publish(upload, request)
            metrics.recordPublish()
            return release
        }
    }

    /// `POST /admin/models/ID/variants?name=&requires=&ext=` (SPEC §3.1): streamed like publish.
    func addVariant(_ id: String, _ head: RequestHead, _ exchange: Exchange, _ caller: Caller) -> HeadDecision {
        let request: VariantRequest
        do throws(CatalogError) {
            request = try VariantRequest(parameters: try Self.parameters(head))
        } catch {
            return .respond(Self.errorResponse(error))
        }
        guard let release = catalog.served.snapshot.catalog.release(id: id) else {
            return .respond(Response.error(404, "not_found", "no release \(id)"))
        }
        do throws(CatalogError) { try release.precheckVariant(named: request.name) } catch {
            return .respond(Self.errorResponse(error))
        }
        return upload(head, exchange, (caller, "add_variant", release)) { [store] (upload) throws(CatalogError) in
            try store.addVariant(upload, to: id, request)
        }
    }

    /// The upload path publish and variants share: 413 and a bad digest header answered from the
    /// head, the body streamed to models/.tmp (hashed on the fly), then `commit` on the
    /// blocking-work thread → 201 with the release and `Location`; nothing kept on failure.
    /// `audit`: who, the action and the release before, recorded once committed.
    private func upload(
        _ head: RequestHead, _ exchange: Exchange, _ audit: (caller: Caller, action: String, before: Release?),
        commit: @escaping @Sendable (FinishedUpload) throws(CatalogError) -> Versioned<Release>
    ) -> HeadDecision {
        do throws(CatalogError) { try store.checkBaseURL(catalog.served.snapshot.catalog) } catch { return .respond(Self.errorResponse(error)) }
        if case .length(let n) = head.body, n > maxUploadBytes {
            return .respond(Response.error(413, "body_too_large", "upload of \(n) bytes exceeds max_upload_bytes (\(maxUploadBytes))"))
        }
        let headerSHA = head.headers["X-Model-SHA256"]
        if let headerSHA, !Hex.isLowercase(headerSHA, bytes: 32) {
            return .respond(Response.error(400, "invalid_parameter", "X-Model-SHA256 must be 64 lowercase hex digits"))
        }
        let writer: UploadWriter
        do throws(CatalogError) {
            writer = try UploadWriter(modelsDirectory: store.directory, instance: instance)
        } catch {
            return .respond(Self.errorResponse(error))
        }
        let sink = UploadSink(writer: writer, exchange: exchange, maxBytes: maxUploadBytes, headerSHA256: headerSHA) {
            [self] result in
            switch result {
            case .failure(let e): exchange.complete(Self.errorResponse(e))
            case .success(let upload):
                do throws(CatalogError) {
                    let release = try commit(upload)
                    watcher.reloadAfterChange()
                    audit.caller.record(audit.action, release: release.value.id, before: audit.before, after: release.value)
                    var r = json(201, release.adminJSON())
                    r.headers.append("Location", Self.collection + "/" + release.value.id)
                    exchange.complete(r)
                } catch {
                    exchange.complete(Self.errorResponse(error))
                }
            }
        }
        if case .none = head.body {
            sink.bodyEnd(trailers: [:])   // an empty file is still a file
            return .deferred
        }
        return .streamBody(sink)
    }

    /// The query as a dictionary (first occurrence wins).
    private static func parameters(_ head: RequestHead) throws(CatalogError) -> [String: String] {
        guard let items = head.queryItems() else { throw CatalogError(.invalidParameter, "malformed percent-encoding in the query") }
        var parameters: [String: String] = [:]
        for (name, value) in items where parameters[name] == nil { parameters[name] = value }
        return parameters
    }

    func patch(_ id: String, _ head: RequestHead, _ exchange: Exchange, _ caller: Caller) -> HeadDecision {
        let basedOn: EntityTagList?
        do throws(CatalogError) { basedOn = try Self.basedOn(head) } catch { return .respond(Self.errorResponse(error)) }
        exchange.setBodyHandler { [self] body, _ in
            do throws(CatalogError) {
                let p = try ReleasePatch(json: body)
                if p.isEmpty {
                    // `{}` changes nothing: the checks of any PATCH (404, 409 `retired`) run on a
                    // copy of the served catalog, and catalog.json is not rewritten.
                    let served = catalog.served.snapshot
                    var copy = served.catalog
                    try copy.check(basedOn, of: id)
                    let release = try copy.apply(p, to: id, now: .now())
                    exchange.complete(json(200, release.adminJSON(publicBaseURL: served.publicBaseURL,
                                                                  catalogVersion: served.catalog.catalogVersion), revision: release.revision))
                } else {
                    let action = AuditEntry.action(forPatch: p)
                    BlockingWork.run { [self] in
                        exchange.complete(mutate(id, caller, action) { (id: String) throws(CatalogError) -> Versioned<Release> in
                            try ManualChange.apply(p, to: id, ifRevision: basedOn, store: store, records: GuardRecords(dataDir: dataDir))
                        })
                    }
                }
            } catch {
                exchange.complete(Self.errorResponse(error))
            }
        }
        return .collectBody(limit: 65_536)
    }

    /// `DELETE /admin/models/ID` (may block: the catalog and guard files are written).
    func retire(_ id: String, _ head: RequestHead, _ caller: Caller) -> Response {
        mutate(id, caller, "retire") { (id: String) throws(CatalogError) -> Versioned<Release> in
            try ManualChange.retire(id, ifRevision: try Self.basedOn(head), store: store, records: GuardRecords(dataDir: dataDir))
        }
    }

    /// `DELETE /admin/models/ID/guard`: "Stop guard" (may block, as retire).
    func stopGuard(_ id: String, _ head: RequestHead, _ caller: Caller) -> Response {
        mutate(id, caller, "stop_guard") { (id: String) throws(CatalogError) -> Versioned<Release> in
            try ManualChange.stopGuard(id, ifRevision: try Self.basedOn(head), store: store, records: GuardRecords(dataDir: dataDir))
        }
    }

    /// `If-Match`: the revision of the release a change was based on (SPEC §15.1; the release's
    /// `ETag`). Absent: the change is unconditional, as for modelctl.
    private static func basedOn(_ head: RequestHead) throws(CatalogError) -> EntityTagList? {
        guard let value = head.headers["If-Match"] else { return nil }
        guard let list = EntityTagList.parse(value) else {
            throw CatalogError(.invalidParameter, parameter: "If-Match", "must be * or a list of entity tags")
        }
        return list
    }

    /// `DELETE /admin/models/ID/variants/NAME` (may block, as retire).
    func removeVariant(_ name: String, from id: String, _ caller: Caller) -> Response {
        mutate(id, caller, "remove_variant") { (id: String) throws(CatalogError) -> Versioned<Release> in
            try store.removeVariant(named: name, from: id)
        }
    }

    /// Runs a catalog change, reloads the served catalog, answers; call it off the loop.
    /// The change is recorded under `caller` as `action`, with the release before and after.
    private func mutate(
        _ id: String, _ caller: Caller, _ action: String,
        _ change: (String) throws(CatalogError) -> Versioned<Release>
    ) -> Response {
        do throws(CatalogError) {
            let before = catalog.served.snapshot.catalog.release(id: id)
            let release = try change(id)
            watcher.reloadAfterChange()
            caller.record(action, release: id, before: before, after: release.value)
            return json(200, release.adminJSON(), revision: release.value.revision)
        } catch {
            return Self.errorResponse(error)
        }
    }

    // MARK: helpers

    /// `revision`: the release's `ETag`, what a change based on this answer sends as `If-Match`.
    private func json(_ status: Int, _ body: [UInt8], revision: EntityTag? = nil) -> Response {
        var r = Response(status: status, headers: ["Content-Type": "application/json", "Cache-Control": "no-store"], body: body)
        if let revision { r.headers.append("ETag", revision.headerValue) }
        return r
    }

    /// The SPEC §10 shape for a catalog error; storage failures other than ENOSPC are 503.
    static func errorResponse(_ e: CatalogError) -> Response {
        let status = e.httpStatus
        if status == 500 {
            var r = Response.error(503, "unavailable", e.message)
            r.headers.append("Retry-After", "5")
            return r
        }
        return Response.error(status, e.code.rawValue, e.parameter.map { "\($0): \(e.message)" } ?? e.message)
    }

}

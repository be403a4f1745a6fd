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
/// Without a configured token every admin path is 404 (secure by default). With the console on,
/// a console session (cookie + `X-CSRF-Token` for changes) is let in too, and its changes are
/// audited (SPEC §15): the console's actions are calls to this API, so they share its code.
struct AdminResponder: Sendable {
    let token: AdminToken?
    let store: CatalogStore
    let catalog: CatalogHolder
    let watcher: CatalogWatcher
    let metrics: Metrics
    let instance: String
    let maxUploadBytes: Int64
    /// Where the guard evaluator keeps its state and decisions (SPEC §11.4).
    let dataDir: String
    /// nil: the console is off, only the bearer token opens the API.
    let console: ConsoleAccess?

    static let collection = "/admin/models"
    private static let label = RequestLabel(route: .admin)

    /// What an authorized request asks for, decided from its head alone: either the answer
    /// itself or the operation that needs the exchange (a body, or work on the blocking thread).
    enum Route {
        case answer(Response)
        case publish
        case addVariant(id: String)
        case removeVariant(id: String, name: String)
        case patch(id: String)
        case retire(id: String)
    }

    func handle(_ head: RequestHead, _ exchange: Exchange) -> HeadDecision {
        guard let token else { return .respond(Response.error(404, "not_found", "no such resource").labelled(Self.label)) }
        let actor: ConsoleActor?
        switch authorize(head, exchange, token) {
        case .success(let a): actor = a
        case .failure(let refusal): return .respond(refusal.response)
        }
        switch route(head) {
        case .answer(let r): return .respond(r)
        case .publish: return publish(head, exchange, actor)
        case .addVariant(let id): return addVariant(id, head, exchange, actor)
        case .removeVariant(let id, let name):
            mutateLater(exchange, actor.map { ($0, "remove_variant") }) { (id: String) throws(CatalogError) -> Versioned<Release> in
                try store.removeVariant(named: name, from: id)
            }(id)
            return .deferred
        case .patch(let id): return patch(id, exchange, actor)
        case .retire(let id):
            mutateLater(exchange, actor.map { ($0, "retire") }) { (id: String) throws(CatalogError) -> Versioned<Release> in
                try ManualChange.retire(id, store: store, records: GuardRecords(dataDir: dataDir))
            }(id)
            return .deferred
        }
    }

    /// The routing of the admin paths once authorized, free of sockets so it can be table-tested.
    func route(_ head: RequestHead) -> Route {
        if head.path == Self.collection {
            switch head.method {
            case "GET", "HEAD": return .answer(list())
            case "POST": return .publish
            default: return .answer(notAllowed("GET, HEAD, POST"))
            }
        }
        let segments = head.path.hasPrefix(Self.collection + "/")
            ? head.path.dropFirst(Self.collection.count + 1).split(separator: "/", omittingEmptySubsequences: false).map(String.init)
            : []
        guard let id = segments.first, !id.isEmpty else {
            return .answer(Response.error(404, "not_found", "no such resource").labelled(Self.label))
        }
        switch (segments.count, segments.count > 1 ? segments[1] : "") {
        case (1, _): break
        case (2, "guard"):
            guard head.method == "GET" || head.method == "HEAD" else { return .answer(notAllowed("GET, HEAD")) }
            return .answer(guardStatus(id))
        case (2, "variants"):
            guard head.method == "POST" else { return .answer(notAllowed("POST")) }
            return .addVariant(id: id)
        case (3, "variants") where !segments[2].isEmpty:
            guard head.method == "DELETE" else { return .answer(notAllowed("DELETE")) }
            return .removeVariant(id: id, name: segments[2])
        default:
            return .answer(Response.error(404, "not_found", "no such resource").labelled(Self.label))
        }
        switch head.method {
        case "GET", "HEAD": return .answer(show(id))
        case "PATCH": return .patch(id: id)
        case "DELETE": return .retire(id: id)
        default: return .answer(notAllowed("GET, HEAD, PATCH, DELETE"))
        }
    }

    // MARK: authorization

    struct Refusal: Error { let response: Response }

    /// The bearer token, or a live console session (with its CSRF token for a change). A session
    /// comes back as the actor its changes are audited under; the bearer token as nil.
    private func authorize(_ head: RequestHead, _ exchange: Exchange, _ token: AdminToken) -> Result<ConsoleActor?, Refusal> {
        if token.matches(authorization: head.headers["Authorization"]) { return .success(nil) }
        if let console, let session = console.session(head) {
            if ConsoleAccess.needsCSRF(head.method), !ConsoleAccess.csrfMatches(head, session) {
                return .failure(Refusal(response: Response.error(403, "forbidden", ConsoleAccess.forbidden).labelled(Self.label)))
            }
            return .success(ConsoleActor(audit: console.audit, session: session, peer: exchange.peer))
        }
        var r = Response.error(401, "unauthorized", "missing or wrong bearer token")
        r.headers.append("WWW-Authenticate", "Bearer")
        return .failure(Refusal(response: r.labelled(Self.label)))
    }

    // MARK: routes

    /// `{"catalog_version":N,"releases":[…]}`: the served catalog's version says which state
    /// the list shows (SPEC §12).
    private func list() -> Response {
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

    private func show(_ id: String) -> Response {
        let served = catalog.served.snapshot
        guard let r = served.catalog.release(id: id) else {
            return Response.error(404, "not_found", "no release \(id)").labelled(Self.label)
        }
        return json(200, r.adminJSON(publicBaseURL: served.publicBaseURL, catalogVersion: served.catalog.catalogVersion))
    }

    /// `GET /admin/models/ID/guard` (SPEC §11.5), answered from the files any replica can read.
    private func guardStatus(_ id: String) -> Response {
        do throws(GuardStatusDocument.Failure) {
            return json(200, try GuardStatusDocument.json(id: id, in: catalog.served.snapshot.catalog, dataDir: dataDir))
        } catch .unreadable(let error) {
            return Self.errorResponse(error)
        } catch {
            return Response.error(404, "not_found", error.message).labelled(Self.label)
        }
    }

    private func publish(_ head: RequestHead, _ exchange: Exchange, _ actor: ConsoleActor?) -> HeadDecision {
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
        return upload(head, exchange, actor.map { ($0, "publish", nil) }) { [self] (upload) throws(CatalogError) in
            let release = try store.publish(upload, request)
            metrics.recordPublish()
            return release
        }
    }

    /// `POST /admin/models/ID/variants?name=&requires=&ext=` (SPEC §3.1): streamed like publish.
    private func addVariant(_ id: String, _ head: RequestHead, _ exchange: Exchange, _ actor: ConsoleActor?) -> HeadDecision {
        let request: VariantRequest
        do throws(CatalogError) {
            request = try VariantRequest(parameters: try Self.parameters(head))
        } catch {
            return .respond(Self.errorResponse(error))
        }
        guard let release = catalog.served.snapshot.catalog.release(id: id) else {
            return .respond(Response.error(404, "not_found", "no release \(id)").labelled(Self.label))
        }
        do throws(CatalogError) { try release.precheckVariant(named: request.name) } catch {
            return .respond(Self.errorResponse(error))
        }
        return upload(head, exchange, actor.map { ($0, "add_variant", release) }) { [store] (upload) throws(CatalogError) in
            try store.addVariant(upload, to: id, request)
        }
    }

    /// The upload path publish and variants share: 413 and a bad digest header answered from the
    /// head, the body streamed to models/.tmp (hashed on the fly), then `commit` on the
    /// blocking-work thread → 201 with the release and `Location`; nothing kept on failure.
    /// `audit`: a console change, recorded once committed (action, the release before).
    private func upload(
        _ head: RequestHead, _ exchange: Exchange, _ audit: (ConsoleActor, String, Release?)?,
        commit: @escaping @Sendable (FinishedUpload) throws(CatalogError) -> Versioned<Release>
    ) -> HeadDecision {
        do throws(CatalogError) { try store.checkBaseURL(catalog.served.snapshot.catalog) } catch { return .respond(Self.errorResponse(error)) }
        if case .length(let n) = head.body, n > maxUploadBytes {
            return .respond(Response.error(413, "body_too_large", "upload of \(n) bytes exceeds max_upload_bytes (\(maxUploadBytes))").labelled(Self.label))
        }
        let headerSHA = head.headers["X-Model-SHA256"]
        if let headerSHA, !Hex.isLowercase(headerSHA, bytes: 32) {
            return .respond(Response.error(400, "invalid_parameter", "X-Model-SHA256 must be 64 lowercase hex digits").labelled(Self.label))
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
                    watcher.reloadNow()
                    audit.map { $0.0.record($0.1, release: release.value.id, before: $0.2, after: release.value) }
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

    private func patch(_ id: String, _ exchange: Exchange, _ actor: ConsoleActor?) -> HeadDecision {
        exchange.setBodyHandler { [self] body, _ in
            do throws(CatalogError) {
                let p = try ReleasePatch(json: body)
                if p.isEmpty {
                    // `{}` changes nothing: the checks of any PATCH (404, 409 `retired`) run on a
                    // copy of the served catalog, and catalog.json is not rewritten.
                    let served = catalog.served.snapshot
                    var copy = served.catalog
                    let release = try copy.apply(p, to: id, now: .now())
                    exchange.complete(json(200, release.adminJSON(publicBaseURL: served.publicBaseURL,
                                                                  catalogVersion: served.catalog.catalogVersion)))
                } else {
                    mutateLater(exchange, actor.map { ($0, AuditEntry.action(forPatch: p)) }) { (id: String) throws(CatalogError) -> Versioned<Release> in
                        try ManualChange.apply(p, to: id, store: store, records: GuardRecords(dataDir: dataDir))
                    }(id)
                }
            } catch {
                exchange.complete(Self.errorResponse(error))
            }
        }
        return .collectBody(limit: 65_536)
    }

    /// Runs a catalog change on the blocking-work thread, reloads the served catalog, answers.
    /// `audit`: a console change and its action, recorded with the release before and after.
    private func mutateLater(
        _ exchange: Exchange, _ audit: (ConsoleActor, String)?,
        _ change: @escaping @Sendable (String) throws(CatalogError) -> Versioned<Release>
    ) -> @Sendable (String) -> Void {
        { [self] id in
            BlockingWork.run {
                do throws(CatalogError) {
                    let before = catalog.served.snapshot.catalog.release(id: id)
                    let release = try change(id)
                    watcher.reloadNow()
                    audit.map { $0.0.record($0.1, release: id, before: before, after: release.value) }
                    exchange.complete(json(200, release.adminJSON()))
                } catch {
                    exchange.complete(Self.errorResponse(error))
                }
            }
        }
    }

    // MARK: helpers

    private func json(_ status: Int, _ body: [UInt8]) -> Response {
        Response(status: status, headers: ["Content-Type": "application/json", "Cache-Control": "no-store"],
                 body: body, label: Self.label)
    }

    private func notAllowed(_ allow: String) -> Response {
        var r = Response.error(405, "method_not_allowed", "allowed: \(allow)")
        r.headers.append("Allow", allow)
        return r.labelled(Self.label)
    }

    /// The SPEC §10 shape for a catalog error; storage failures other than ENOSPC are 503.
    static func errorResponse(_ e: CatalogError) -> Response {
        let status = e.httpStatus
        let r: Response
        if status == 500 {
            var u = Response.error(503, "unavailable", e.message)
            u.headers.append("Retry-After", "5")
            r = u
        } else {
            let message = e.parameter.map { "\($0): \(e.message)" } ?? e.message
            r = Response.error(status, e.code.rawValue, message)
        }
        return r.labelled(label)
    }

}

import Console
import Dispatch
import EgressCost
import EventStore
import GuardRuntime
import Guardrails
import HTTPServer
import HTTPWire
import ModeldConfig
import ModelCatalog
#if canImport(Glibc)
import Glibc
#endif

/// `/console/…` (SPEC §15): the sign-in form, sessions, and the server-rendered views. Pages only
/// read; every change is a call from console.js to the admin API (`AdminResponder`), which
/// checks the session's CSRF token and audits it. It exists only when the console is on (an admin
/// token and `console.enabled`); otherwise the router answers every console path 404.
struct ConsoleResponder: Sendable {
    let access: ConsoleAccess
    let catalog: CatalogHolder
    let servedToday: ServedToday
    let modelsDir: String
    let dataDir: String
    /// The access log file the cost view reports on (nil: off or stdout).
    let accessLogPath: String?
    let pricingPath: String
    /// "signed (keyid …)" or "unsigned": how /latest answers are signed (SPEC §12).
    let signature: String

    /// SPEC §15's header set, on every console response.
    static let securityHeaders: [(String, String)] = [
        ("Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; frame-ancestors 'none'"),
        ("X-Content-Type-Options", "nosniff"),
        ("Referrer-Policy", "no-referrer"),
        ("Cache-Control", "no-store"),
    ]

    /// `/console`, any method: the console lives at `/console/`.
    func home() -> Response {
        Self.secured(Response(status: 308, headers: ["Location": "/console/"], body: []))
    }

    func script() -> Response { asset(ConsoleAssets.script, "text/javascript; charset=utf-8") }

    func style() -> Response { asset(ConsoleAssets.style, "text/css; charset=utf-8") }

    func icon() -> Response { asset(ConsoleAssets.icon, "image/svg+xml") }

    /// The pages below `/console/` answer a signed-in operator only; anyone else gets the
    /// sign-in page as a 401, which returns to the page once signed in (SPEC §15.1).
    private func signedIn(_ head: RequestHead, _ answer: (ConsoleSession) -> Response) -> Response {
        guard let session = access.session(head) else {
            let target = head.query.isEmpty ? head.path : head.path + "?" + head.query
            return page(401, ConsolePage.signIn(message: "Sign in to see this page.", returnTo: target))
        }
        return answer(session)
    }

    /// A console path no page has: 404, once signed in.
    func noSuchPage(_ head: RequestHead) -> Response {
        signedIn(head) { _ in Self.secured(Response.error(404, "not_found", "no such console page")) }
    }

    // MARK: sign-in

    /// `POST /console/login`, form fields `token` (the admin token or a named one) and `next`: 303
    /// to `next` (a same-origin path, else `/console/`) with the session cookie. A correct token
    /// always passes; a wrong one is answered 401 once the throttle's delay (≥ 200 ms, growing per
    /// client address) has passed. Both outcomes are audited before the answer (SPEC §15.1).
    func signIn(_ head: RequestHead, _ exchange: Exchange) -> HeadDecision {
        if !ConsoleAccess.fromOwnOrigin(head) { return .respond(Self.secured(ConsoleAccess.foreignOrigin)) }
        let address = access.clientAddress.of(head, peer: exchange.peer)
        exchange.setBodyHandler { [self] body, _ in
            let form = RequestHead.formItems(body) ?? []
            let offered = form.first { $0.name == "token" }?.value
            let next = ReturnPath.validated(form.first { $0.name == "next" }?.value)
            let now = Timestamp.now().millisecondsSinceEpoch
            if let offered, let principal = access.credentials.principal(for: offered, nowMillis: now) {
                access.throttle.succeeded(address: address)
                let (cookie, session) = access.sessions.create(now: now, principal: principal)
                var r = Response(status: 303, headers: ["Location": next ?? "/console/"], body: [])
                r.headers.append("Set-Cookie", access.setCookie(cookie, maxAge: access.sessionSeconds))
                let signedIn = Self.secured(r)
                BlockingWork.run { [access] in
                    access.record("sign_in", actor: principal.name, peer: address, session: session.handle)
                    exchange.complete(signedIn)
                }
            } else {
                let delay = access.throttle.failed(address: address, now: now)
                let refusal = page(401, ConsolePage.signIn(message: "Wrong token.", returnTo: next))
                DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(Int(delay))) { [access] in
                    access.record("sign_in_failed", actor: nil, peer: address, session: nil)
                    exchange.complete(refusal)
                }
            }
        }
        return .collectBody(limit: 8_192)
    }

    /// `POST /console/logout` with the CSRF token: the session ends on the server, the cookie is
    /// cleared, and the sign-out is audited (may block: the audit line is fsynced).
    func signOut(_ head: RequestHead, _ exchange: Exchange) -> Response {
        guard let cookie = CookieHeader.value(named: ConsoleAccess.cookieName, in: head.headers["Cookie"]),
              let session = access.session(head) else {
            return Self.secured(Response.error(401, "unauthorized", "no console session"))
        }
        if let refusal = ConsoleAccess.refusal(head, session) { return Self.secured(refusal) }
        access.sessions.end(cookie: cookie)
        access.record("sign_out", actor: session.principal.name, peer: access.clientAddress.of(head, peer: exchange.peer), session: session.handle)
        return Self.secured(Response(status: 204, headers: ["Set-Cookie": access.setCookie("", maxAge: 0)], body: []))
    }

    // MARK: views

    /// `/console/[?channel=&label=&state=&page=&per_page=]`: a page of releases, or the sign-in form (200) to anyone not signed in. The
    /// console's "session ended" link is `/console/?next=PAGE`: the form carries `next` on, and a
    /// browser already signed in (another tab) goes straight there.
    func releases(_ head: RequestHead) -> Response {
        let next = ReturnPath.validated(head.queryItem("next"))
        guard let session = access.session(head) else { return page(200, ConsolePage.signIn(message: nil, returnTo: next)) }
        if let next { return Self.secured(Response(status: 303, headers: ["Location": next], body: [])) }
        // Filter and page from the URL (SPEC §17.1); a malformed escape is refused, not dropped.
        let items = head.queryItems()
        let typed = ReleaseQuery.Typed(items ?? [])
        let listing = items == nil ? .failure(QueryProblem("the query string has a malformed %-escape"))
            : ReleaseQuery.parse(typed).map { ReleaseListing(catalog.served.snapshot.catalog.releases, query: $0) }
        let served = servedToday.counts(nowMillis: Timestamp.now().millisecondsSinceEpoch)
        let status = if case .failure = listing { 400 } else { 200 }
        return page(status, ReleasesView.page(listing, typed: typed, served: served, signature: signature, session: session))
    }

    func release(_ id: String, _ head: RequestHead) -> Response {
        signedIn(head) { session in
            render(id) { page(200, ReleaseView.page($0, chunkList: $1, served: $2, guardReport: $3, signature: signature, session: session, nowMillis: $4,
                                                lineage: catalog.served.snapshot.catalog.lineage(of: $0))) }
        }
    }

    /// The page's live parts only (state, rollout, actions, guard), fetched by console.js every
    /// few seconds (SPEC §15.1).
    func liveFragment(_ id: String, _ head: RequestHead) -> Response {
        signedIn(head) { session in
            render(id) { page(200, ReleaseView.live($0, chunkList: $1, served: $2, guardReport: $3, signature: signature, session: session, nowMillis: $4,
                                                lineage: catalog.served.snapshot.catalog.lineage(of: $0))) }
        }
    }

    /// What the release page and its live parts are drawn from, read now; 404 for an unknown id.
    private func render(_ id: String, _ draw: (Release, String?, ReleasesView.Served, GuardReport?, Int64) -> Response) -> Response {
        guard let r = catalog.served.snapshot.catalog.release(id: id) else {
            return Self.secured(Response.error(404, "not_found", "no release \(id)"))
        }
        let chunks = r.file + ".chunks"
        let now = Timestamp.now().millisecondsSinceEpoch
        let served = servedToday.counts(nowMillis: now)[r.id] ?? .init()
        return draw(r, Glibc.access(modelsDir + "/" + chunks, F_OK) == 0 ? chunks : nil, served, guardReport(r.id), now)
    }

    /// The same document as `GET /admin/models/ID/guard`, drawn as `modelctl experiment report` draws it.
    private func guardReport(_ id: String) -> GuardReport? {
        guard let document = try? GuardStatusDocument.json(id: id, in: catalog.served.snapshot.catalog, dataDir: dataDir) else { return nil }
        return GuardReport(statusDocument: document, id: id)
    }

    /// Reads the event segments of the window (deduplicated, as `modelctl events stats`).
    func events(_ head: RequestHead) -> Response {
        signedIn(head) { session in
            let filter = EventsView.Filter(name: head.queryItem("name") ?? "", from: head.queryItem("from") ?? "", to: head.queryItem("to") ?? "")
            var stats = EventsView.Stats()
            var summary: EventExport.Summary?
            if filter.problem == nil {
                let export = EventExport(directory: dataDir + "/events", since: filter.from.nonEmpty, until: filter.to.nonEmpty)
                summary = try? export.forEach { stats.add($0.root.value, only: filter.name.nonEmpty) }
            }
            let labels = Dictionary(catalog.served.snapshot.catalog.releases.map { ($0.id, $0.label) }, uniquingKeysWith: { a, _ in a })
            return page(filter.problem == nil ? 200 : 400, EventsView.page(stats, filter: filter, summary: summary, labels: labels, session: session))
        }
    }

    func cost(_ head: RequestHead) -> Response {
        signedIn(head) { session in
            let form = CostView.EstimatorForm(downloads: head.queryItem("downloads") ?? "", size: head.queryItem("size") ?? "",
                                              installs: head.queryItem("installs") ?? "", pollsPerDay: head.queryItem("polls_per_day") ?? "")
            let providers = pricing()
            let estimate = form.inputs().map { inputs -> Result<Estimate, EstimateError> in
                inputs.flatMap { i in providers.flatMap { p in Result { () throws(EstimateError) in try Estimator.estimate(i, providers: p) } } }
            }
            // The traffic is reported without prices when the price table cannot be read.
            let report = trafficReport().map { $0.summary(providers: (try? providers.get()) ?? []) }
            let pricingProblem: String? = if case .failure(let e) = providers { e.message } else { nil }
            return page(200, CostView.page(form: form, estimate: estimate, report: report, pricingProblem: pricingProblem,
                                           session: session))
        }
    }

    /// `/console/audit[?actor=&release=]` (SPEC §15.1): the last 200 matching lines of the audit log.
    func audit(_ head: RequestHead) -> Response {
        signedIn(head) { session in
            let actor = head.queryItem("actor").flatMap { $0.isEmpty ? nil : $0 }
            let release = head.queryItem("release").flatMap { $0.isEmpty ? nil : $0 }
            let lines = access.audit.recent(limit: AuditView.limit) { $0.matches(actor: actor, release: release) }
            return page(200, AuditView.page(lines, actor: actor, release: release, session: session))
        }
    }

    private func pricing() -> Result<[ProviderPricing], EstimateError> {
        guard let bytes = try? FileIO.read(pricingPath) else { return .failure(EstimateError(message: "cannot read \(pricingPath)")) }
        do throws(PricingError) { return .success(try PriceTable.parse(json: String(decoding: bytes, as: UTF8.self)).providers) } catch {
            return .failure(EstimateError(message: "\(pricingPath): \(error.message)"))
        }
    }

    /// This instance's current access-log file (rotated ones are left to `modelctl cost report`).
    private func trafficReport() -> Result<TrafficReport, EstimateError> {
        guard let accessLogPath else { return .failure(EstimateError(message: "the access log is off or goes to stdout")) }
        var report = TrafficReport()
        let bytes = (try? FileIO.read(accessLogPath)) ?? nil
        for line in (bytes ?? []).split(separator: UInt8(ascii: "\n")) {
            // A torn last line (the writer is mid-append) is skipped; the next view counts it.
            if let record = try? EgressLogRecord(jsonLine: String(decoding: line, as: UTF8.self)) { _ = report.add(record) }
        }
        return .success(report)
    }

    // MARK: responses

    private func page(_ status: Int, _ html: String) -> Response {
        Self.secured(Response(status: status, headers: ["Content-Type": "text/html; charset=utf-8"], body: Array(html.utf8)))
    }

    private func asset(_ text: String, _ type: String) -> Response {
        Self.secured(Response(status: 200, headers: ["Content-Type": type], body: Array(text.utf8)))
    }

    static func secured(_ response: Response) -> Response {
        var r = response
        for (name, value) in securityHeaders {
            r.headers.set(name, value)
        }
        return r
    }
}

private extension String {
    var nonEmpty: String? { isEmpty ? nil : self }
}

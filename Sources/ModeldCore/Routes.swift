import AccessTokens
import HTTPServer
import HTTPWire

/// Every route of modeld (SPEC §4, §7.1, §9.2, §12, §14, §15) in one table. The 405 and its
/// `Allow`, HEAD (from GET), the metrics label and the least role each admin route needs
/// (SPEC §15.1) all come from here; docs/decisions/routing.md, docs/decisions/tokens.md.
extension Router {
    typealias Table = RouteTable<RouteAccess, RouteHandler>

    static let table = Table([
        // The update check first: the busiest path is the first comparison.
        route("/latest", .latest, [
            .get: .loop { r, q in .respond(r.latest.respond(q.head)) },
            // An update check with outcome events (SPEC §4.2).
            .post: .loop { r, q in r.events.handle(q.head, q.exchange, withUpdateCheck: true) },
        ]),
        // Every channel of an app in one check, with outcome events (SPEC §17.2).
        route("/check", .check, [.post: .loop { r, q in r.check.handle(q.head, q.exchange) }]),
        // The static mirror's name stays a GET resource, as it is on a CDN.
        route("/latest_model_details.json", .latest, [.get: .loop { r, q in .respond(r.latest.respondDetails(q.head)) }]),
        // Sent from file descriptors opened when the catalog was loaded: nothing blocks.
        route("/models/{file...}", .models, [.get: .loop { r, q in .respond(r.models.respond(q.head, file: q.parameter(0))) }]),
        route("/events", .events, [.post: .loop { r, q in r.events.handle(q.head, q.exchange, withUpdateCheck: false) }]),
        route("/healthz", .health, [.get: .loop { r, _ in .respond(r.operations.health()) }]),
        route("/metrics", .metrics, [.get: .loop { r, _ in .respond(r.operations.metricsText()) }]),
        // Signed metadata is read from the models directory per request.
        route("/latest_model_details.sig.json", .latest, [.get: .blocking { r, q in r.signedMetadata.respond(q.head) }]),
        route("/details/{snapshot...}", .latest, [.get: .blocking { r, q in r.signedMetadata.respond(q.head) }]),
        route("/rules/{rules...}", .latest, [.get: .blocking { r, q in r.signedMetadata.respond(q.head) }]),

        route("/admin/models", .admin, access: releases, [
            .get: .loop { r, _ in .respond(r.admin.list()) },
            .post: audited { r, q, c in r.admin.publish(q.head, q.exchange, c) },
        ]),
        route("/admin/models/{id}", .admin, access: releases, [
            .get: .loop { r, q in .respond(r.admin.show(q.parameter(0))) },
            .patch: audited { r, q, c in r.admin.patch(q.parameter(0), q.head, q.exchange, c) },
            .delete: auditedBlocking { r, q, c in r.admin.retire(q.parameter(0), q.head, c) },
        ]),
        // Reads the guard's state file and decisions log (SPEC §11.5); DELETE stops the guard
        // (the console's "Stop guard", SPEC §15.1), a manual change like a rollout (§11.4).
        route("/admin/models/{id}/guard", .admin, access: releases, [
            .get: .blocking { r, q in r.admin.guardStatus(q.parameter(0)) },
            .delete: auditedBlocking { r, q, c in r.admin.stopGuard(q.parameter(0), q.head, c) },
        ]),
        route("/admin/models/{id}/variants", .admin, access: releases, [
            .post: audited { r, q, c in r.admin.addVariant(q.parameter(0), q.head, q.exchange, c) },
        ]),
        route("/admin/models/{id}/variants/{name}", .admin, access: releases, [
            .delete: auditedBlocking { r, q, c in r.admin.removeVariant(q.parameter(1), from: q.parameter(0), c) },
        ]),
        // What is live now (SPEC §15.1), from the served catalog.
        route("/admin/live", .admin, access: releases, [.get: .loop { r, q in .respond(r.admin.live(q.head)) }]),
        route("/admin/models/{rest...}", .admin, access: releases, [.all: .loop { _, _ in .respond(Router.notFound) }]),
        // Named tokens (SPEC §15.1): the book is a file every replica shares, so each call may block.
        route("/admin/tokens", .admin, access: tokens, [
            .get: .blocking { r, _ in r.tokens.list() },
            .post: audited { r, q, c in r.tokens.create(q.exchange, c) },
        ]),
        route("/admin/tokens/{name}", .admin, access: tokens, [.delete: auditedBlocking { r, q, c in r.tokens.revoke(q.parameter(0), c) }]),

        route("/console", .other, access: .console, [.all: console { c, _ in .respond(c.home()) }]),
        route("/console/", .other, access: .console, [.get: console { c, q in .respond(c.releases(q.head)) }]),
        route("/console/assets/console.js", .other, access: .console, [.get: console { c, _ in .respond(c.script()) }]),
        route("/console/assets/console.css", .other, access: .console, [.get: console { c, _ in .respond(c.style()) }]),
        route("/console/assets/favicon.svg", .other, access: .console, [.get: console { c, _ in .respond(c.icon()) }]),
        route("/console/login", .other, access: .console, [.post: console { c, q in c.signIn(q.head, q.exchange) }]),
        // Audited: the line is appended (fsynced) before the answer.
        route("/console/logout", .other, access: .console, [.post: consoleBlocking { c, q in c.signOut(q.head, q.exchange) }]),
        // Every event segment, the access log and the pricing file, or the guard's files.
        route("/console/events", .other, access: .console, [.get: consoleBlocking { c, q in c.events(q.head) }]),
        route("/console/cost", .other, access: .console, [.get: consoleBlocking { c, q in c.cost(q.head) }]),
        route("/console/audit", .other, access: .console, [.get: consoleBlocking { c, q in c.audit(q.head) }]),
        route("/console/releases/{id}", .other, access: .console, [.get: consoleBlocking { c, q in c.release(q.parameter(0), q.head) }]),
        // Polled every few seconds by the release page: its state, rollout, actions and guard.
        route("/console/releases/{id}/live", .other, access: .console, [
            .get: consoleBlocking { c, q in c.liveFragment(q.parameter(0), q.head) },
        ]),
        route("/console/{page...}", .other, access: .console, [.get: console { c, q in .respond(c.noSuchPage(q.head)) }]),
    ])

    /// SPEC §15.1: viewers read releases; publishers also publish, steer, retire and add or
    /// remove variants (experiments are started by a PATCH or a publish with `guard`).
    private static let releases = RouteAccess.admin(read: .viewer, change: .publisher)
    /// Only an admin lists, creates or revokes tokens.
    private static let tokens = RouteAccess.admin(read: .admin, change: .admin)

    private static func route(_ pattern: String, _ label: MetricsRoute, access: RouteAccess = .open,
                              _ handlers: KeyValuePairs<Methods, RouteHandler>) -> Route<RouteAccess, RouteHandler> {
        Route(pattern, label: RequestLabel(route: label), access: access, handlers)
    }

    // The `.admin` access rule lets a request in only with its caller: the changes are audited under it.
    private static func audited(_ answer: @escaping @Sendable (Router, RouteRequest, Caller) -> HeadDecision) -> RouteHandler {
        .loop { r, q in answer(r, q, q.caller!) }
    }

    private static func auditedBlocking(_ answer: @escaping @Sendable (Router, RouteRequest, Caller) -> Response) -> RouteHandler {
        .blocking { r, q in answer(r, q, q.caller!) }
    }

    // The `.console` access rule lets a request in only when the console is on.
    private static func console(_ answer: @escaping @Sendable (ConsoleResponder, RouteRequest) -> HeadDecision) -> RouteHandler {
        .loop { r, q in answer(r.console!, q) }
    }

    private static func consoleBlocking(_ answer: @escaping @Sendable (ConsoleResponder, RouteRequest) -> Response) -> RouteHandler {
        .blocking { r, q in answer(r.console!, q) }
    }
}

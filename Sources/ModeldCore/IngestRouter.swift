import HTTPServer
import HTTPWire

/// An ingest replica's routes (SPEC §18, `ingest_only`): `POST /events`, `GET /healthz`,
/// `GET /metrics`; every other path is the §10 404 `not_found` (a wrong method on these three,
/// the 405 with `Allow`). No catalog, no admin API, no console behind it.
struct IngestRouter: HTTPHandler {
    let events: EventsResponder
    let operations: OperationsResponder

    typealias Handle = @Sendable (IngestRouter, RequestHead, Exchange) -> HeadDecision

    static let table = RouteTable<RouteAccess, Handle>([
        Route("/events", label: RequestLabel(route: .events), access: .open, [.post: { r, head, exchange in r.events.handle(head, exchange, withUpdateCheck: false) }]),
        Route("/healthz", label: RequestLabel(route: .health), access: .open, [.get: { r, _, _ in .respond(r.operations.health()) }]),
        Route("/metrics", label: RequestLabel(route: .metrics), access: .open, [.get: { r, _, _ in .respond(r.operations.metricsText()) }]),
    ])

    func handle(_ head: RequestHead, _ exchange: Exchange) -> HeadDecision {
        switch Self.table.match(head, labelling: exchange) {
        case .notFound: .respond(Router.notFound)
        case .notAllowed(let route): .respond(route.notAllowed())
        case .found(_, let handle, _): handle(self, head, exchange)
        }
    }
}

import HTTPServer
import HTTPWire

/// Dispatches by exact path to the route that owns it (SPEC §4); anything else is the §10 404.
struct Router: HTTPHandler {
    let latest: LatestResponder
    let models: ModelFileResponder
    let admin: AdminResponder
    let events: EventsResponder
    let operations: OperationsResponder
    let signedMetadata: SignedMetadataResponder
    let console: ConsoleResponder

    func handle(_ head: RequestHead, _ exchange: Exchange) -> HeadDecision {
        let path = head.path
        if path == "/latest" || path == "/latest_model_details.json" {
            // POST (events) is an update check of `/latest` only (SPEC §4.2); the static
            // mirror's name stays a GET resource, as it is on a CDN.
            let postable = path == "/latest"
            switch head.method {
            case "GET", "HEAD": return .respond(latest.respond(head))
            case "POST" where postable: return events.handle(head, exchange, withUpdateCheck: true)
            default: return .respond(notAllowed(postable ? "GET, HEAD, POST" : "GET, HEAD", .latest))
            }
        }
        if path == "/events" {
            guard head.method == "POST" else { return .respond(notAllowed("POST", .events)) }
            return events.handle(head, exchange, withUpdateCheck: false)
        }
        if SignedMetadataResponder.owns(path) {
            return .respond(signedMetadata.respond(head))
        }
        if path.hasPrefix(ModelFileResponder.prefix) {
            return .respond(models.respond(head))
        }
        if path == AdminResponder.collection || path.hasPrefix(AdminResponder.collection + "/") {
            return admin.handle(head, exchange)
        }
        if ConsoleResponder.owns(path) {
            return console.handle(head, exchange)
        }
        switch path {
        case "/healthz":
            guard head.method == "GET" || head.method == "HEAD" else { return .respond(notAllowed("GET, HEAD", .health)) }
            return .respond(operations.health().labelled(RequestLabel(route: .health)))
        case "/metrics":
            guard head.method == "GET" || head.method == "HEAD" else { return .respond(notAllowed("GET, HEAD", .metrics)) }
            return .respond(operations.metricsText().labelled(RequestLabel(route: .metrics)))
        default:
            return .respond(Response.error(404, "not_found", "no such resource").labelled(RequestLabel(route: .other)))
        }
    }

    private func notAllowed(_ allow: String, _ route: MetricsRoute) -> Response {
        var r = Response.error(405, "method_not_allowed", "allowed: \(allow)")
        r.headers.append("Allow", allow)
        return r.labelled(RequestLabel(route: route))
    }
}

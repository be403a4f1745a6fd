import AccessTokens
import HTTPServer
import HTTPWire

/// Dispatches through `Router.table` (Routes.swift): the route's access rule first, then its
/// 405, then its handler, on the loop or on `BlockingWork` as the table says; a path no route
/// owns is the §10 404.
struct Router: HTTPHandler {
    let latest: LatestResponder
    let models: ModelFileResponder
    let admin: AdminResponder
    let tokens: TokensResponder
    let events: EventsResponder
    let check: CheckResponder
    let operations: OperationsResponder
    let signedMetadata: SignedMetadataResponder
    /// nil: the console is off (disabled, or no admin token), every console path is 404.
    let console: ConsoleResponder?

    static let notFound = Response.error(404, "not_found", "no such resource")

    func handle(_ head: RequestHead, _ exchange: Exchange) -> HeadDecision {
        switch Self.table.match(head, labelling: exchange) {
        case .notFound:
            return .respond(Self.notFound)
        case .notAllowed(let route):
            if case .failure(let refusal) = admit(route.access, head, exchange) { return .respond(refusal.response) }
            return .respond(Self.withRouteHeaders(route, route.notAllowed()))
        case .found(let route, let handler, let parameters):
            var request = RouteRequest(head: head, exchange: exchange, parameters: parameters)
            switch admit(route.access, head, exchange) {
            case .success(let caller): request.caller = caller
            case .failure(let refusal): return .respond(refusal.response)
            }
            switch handler {
            case .loop(let handle):
                return handle(self, request)
            case .blocking(let answer):
                BlockingWork.run { [self, request] in exchange.complete(answer(self, request)) }
                return .deferred
            }
        }
    }

    /// A 405 carries the headers of its route's own answers: the console's security set (SPEC
    /// §15), the model files' isolation (§15.1).
    private static func withRouteHeaders(_ route: Route<RouteAccess, RouteHandler>, _ response: Response) -> Response {
        if route.access == .console { return ConsoleResponder.secured(response) }
        if (route.label as? RequestLabel)?.route == .models { return ModelFileResponder.isolated(response) }
        return response
    }

    /// The route's access rule: admin routes need a token or a console session whose role is
    /// at least the one the table names for the method (the caller comes back as the actor its
    /// changes are audited under); console routes need the console on. Either is a 404 when
    /// switched off, so nothing says the area exists.
    private func admit(_ access: RouteAccess, _ head: RequestHead, _ exchange: Exchange) -> Result<Caller?, Refusal> {
        switch access {
        case .open: .success(nil)
        case .admin(let read, let change):
            admin.authorize(head, exchange, needs: Methods(requestMethod: head.method) == .get ? read : change).map { $0 }
        case .console: console == nil ? .failure(Refusal(response: ConsoleResponder.secured(Self.notFound))) : .success(nil)
        }
    }
}

/// An answer given instead of the route's: 401, 403, or 404 for an area that is off.
struct Refusal: Error {
    let response: Response
}

/// Who may reach a route, checked before its 405 so a refused caller learns nothing more.
enum RouteAccess: Sendable, Equatable {
    case open
    /// SPEC §7.1, §15.1: a bearer token, or a console session with its CSRF token for a change,
    /// whose role is at least `read` for GET and HEAD and at least `change` for any other method.
    case admin(read: Role, change: Role)
    /// SPEC §15: the console is on; pages check the session themselves (some answer without).
    case console
}

/// How a route answers. The table says which routes may block: any that reads a file.
enum RouteHandler: Sendable {
    /// On the loop thread: must not block (answers from memory, or body handling).
    case loop(@Sendable (Router, RouteRequest) -> HeadDecision)
    /// On `BlockingWork`, the exchange completed with its answer (the exchange's label is
    /// loop-confined: a handler that refines it is a `.loop` one).
    case blocking(@Sendable (Router, RouteRequest) -> Response)
}

/// What a handler gets: the request, its exchange, the pattern's parameters in order, and for
/// an admin route who made it (nil on the other routes).
struct RouteRequest: Sendable {
    let head: RequestHead
    let exchange: Exchange
    let parameters: [Substring]
    var caller: Caller? = nil

    /// The pattern's `n`th parameter.
    func parameter(_ n: Int) -> String { String(parameters[n]) }
}

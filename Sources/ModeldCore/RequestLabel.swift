import HTTPServer
import HTTPWire

/// What a route tells the access log and metrics about an exchange; the engine hands it back
/// untouched in `ExchangeSummary.label`.
struct RequestLabel: Sendable {
    var route: MetricsRoute
    var modelID: String? = nil
    var sdk: String? = nil
    /// Update checks answered (SPEC §17.2: each channel of a `POST /check` counts as one).
    var checks = 0
}

extension Response {
    /// The same response, labelled for the access log and metrics.
    func labelled(_ label: RequestLabel) -> Response {
        var copy = self
        copy.label = label
        return copy
    }
}

extension RouteTable {
    /// The match for a request, its exchange labelled before anything else (docs/decisions/
    /// routing.md): with the route's label, or `other` for a path no route owns. Both routers
    /// dispatch through it; inlined so the label and the router's own switch are one branch.
    @inline(__always) func match(_ head: RequestHead, labelling exchange: Exchange) -> Match {
        let result = match(method: head.method, path: head.path)
        switch result {
        case .notFound: exchange.label = unmatchedLabel
        case .notAllowed(let route), .found(let route, _, _): exchange.label = route.label
        }
        return result
    }
}

/// `RequestLabel(route: .other)`, boxed once (a generic type cannot hold a stored static).
private let unmatchedLabel: any Sendable = RequestLabel(route: .other)

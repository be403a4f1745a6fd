import HTTPServer

/// What a route tells the access log and metrics about an exchange; the engine hands it back
/// untouched in `ExchangeSummary.label`.
struct RequestLabel: Sendable {
    var route: MetricsRoute
    var modelID: String? = nil
    var sdk: String? = nil
}

extension Response {
    /// The same response, labelled for the access log and metrics.
    func labelled(_ label: RequestLabel) -> Response {
        var copy = self
        copy.label = label
        return copy
    }
}

import HTTPServer
import HTTPWire

/// `/healthz` and `/metrics` (SPEC §4.4).
struct OperationsResponder: Sendable {
    let metrics: Metrics
    let isDraining: @Sendable () -> Bool

    private static let ok: [UInt8] = Array(#"{"status":"ok"}"#.utf8)
    private static let draining: [UInt8] = Array(#"{"status":"draining"}"#.utf8)

    func health() -> Response {
        let draining = isDraining()
        return Response(status: draining ? 503 : 200,
                        headers: ["Content-Type": "application/json", "Cache-Control": "no-store"],
                        body: draining ? Self.draining : Self.ok)
    }

    func metricsText() -> Response {
        Response(headers: ["Content-Type": Metrics.contentType, "Cache-Control": "no-store"],
                 body: Array(metrics.render().utf8))
    }
}

import Foundation
import HTTPTestSupport
import Testing

/// SPEC §4.4 `/metrics` of the real binary: the whole output parses as strict Prometheus text
/// format, the required families are there, and the counters move with traffic.
@Suite(.serialized) final class OperationsMetricsTests {
    @Test func metrics_isStrictPrometheusTextWithEveryRequiredFamily_SPEC4_4() throws {
        let server = try ModeldServer()
        let response = try HTTP.get(server.port, "/metrics")
        #expect(response.status == 200)
        #expect(response.headers["Content-Type"]?.hasPrefix("text/plain; version=0.0.4") == true)
        let families = try PrometheusText.parse(response.text)
        let required: [(String, String)] = [
            ("modeld_http_requests_total", "counter"), ("modeld_http_response_body_bytes_total", "counter"),
            ("modeld_open_connections", "gauge"), ("modeld_events_total", "counter"),
            ("modeld_event_batches_total", "counter"), ("modeld_event_commits_total", "counter"),
            ("modeld_fsync_seconds", "histogram"), ("modeld_catalog_reloads_total", "counter"),
            ("modeld_build_info", "gauge"), ("modeld_catalog_polls_total", "counter"), ("modeld_guard_intervals_total", "counter"),
        ]
        for (name, type) in required {
            #expect(families[name]?.type == type, "\(name): \(String(describing: families[name]?.type))")
        }
        for result in ["accepted", "duplicate", "rejected"] {
            #expect(families.value("modeld_events_total", nil, ["result": result]) != nil, "\(result)")
        }
        let info = try #require(families["modeld_build_info"]?.samples.first)
        #expect(info.value == 1)
        #expect(info.labels["version"].map { !$0.isEmpty } == true)
        #expect(families.value("modeld_catalog_reloads_total")! >= 1, "the initial load counts")
        // Only the route names of §4.4, and §17.2's `check`.
        let routes = Set(["latest", "check", "events", "models", "admin", "health", "metrics", "other"])
        for family in ["modeld_http_requests_total", "modeld_http_response_body_bytes_total"] {
            for sample in families[family]?.samples ?? [] {
                #expect(routes.contains(sample.labels["route"] ?? ""), "\(sample)")
            }
        }
    }

    @Test func metrics_requestAndByteCountersMoveWithTraffic_SPEC4_4() throws {
        let server = try ModeldServer()
        let before = try server.scrapeMetrics()
        let latest200 = { (f: [String: PromFamily]) in f.value("modeld_http_requests_total", nil, ["route": "latest", "status": "200"]) ?? 0 }
        let other404 = { (f: [String: PromFamily]) in f.value("modeld_http_requests_total", nil, ["route": "other", "status": "404"]) ?? 0 }
        let bytes = { (f: [String: PromFamily], route: String) in f.value("modeld_http_response_body_bytes_total", nil, ["route": route]) ?? 0 }

        var latestBytes = 0
        var modelFile = ""
        for _ in 0..<3 {
            let r = try HTTP.get(server.port, "/latest?sdk=2.3")
            #expect(r.status == 200)
            latestBytes += r.body.count
            modelFile = (HTTP.json(r)?["url"] as? String).map { String($0.split(separator: "/").last!) } ?? ""
        }
        let model = try HTTP.get(server.port, "/models/\(modelFile)")
        #expect(model.status == 200 && model.body.count == 316)
        #expect(try HTTP.get(server.port, "/nope").status == 404)

        // The exchange is recorded when it finishes, which may be just after the client read it.
        var after = before
        let moved = try ModeldServer.eventually(within: 5) {
            after = try server.scrapeMetrics()
            return latest200(after) - latest200(before) == 3 && bytes(after, "models") - bytes(before, "models") == 316
                && other404(after) - other404(before) == 1
        }
        #expect(moved, "latest 200: \(latest200(before)) → \(latest200(after))")
        #expect(bytes(after, "latest") - bytes(before, "latest") == Double(latestBytes))
        #expect(other404(after) - other404(before) == 1)
        #expect((after.value("modeld_http_requests_total", nil, ["route": "metrics", "status": "200"]) ?? 0) >= 1)
    }

    @Test func metrics_openConnectionsGaugeFollowsAHeldConnection_SPEC4_4() throws {
        let server = try ModeldServer()
        let gauge = { () throws -> Double in try server.scrapeMetrics().value("modeld_open_connections") ?? -1 }
        // Alone, the scrape's own connection is the only one.
        #expect(try ModeldServer.eventually(within: 5) { try gauge() == 1 })

        let held = try RawClient(port: server.port)
        try held.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try held.readResponse().status == 200)   // accepted and kept alive
        let second = try RawClient(port: server.port)
        try second.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try second.readResponse().status == 200)
        // The earlier scrapes' connections close on their own time: wait for the count to settle.
        #expect(try ModeldServer.eventually(within: 5) { try gauge() == 3 })

        held.close()
        second.close()
        #expect(try ModeldServer.eventually(within: 5) { try gauge() == 1 }, "back to the scrape alone")
    }
}

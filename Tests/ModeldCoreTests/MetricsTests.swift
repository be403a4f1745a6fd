import Testing
@testable import ModeldCore

/// A strict reader of Prometheus text format 0.0.4: every sample belongs to a family announced
/// by `# HELP` then `# TYPE`, names and labels are well-formed, escapes are valid, no series
/// repeats, histograms are cumulative and end at `+Inf` == `_count`.
private struct ExpositionParser {
    struct Sample: Hashable {
        var name: String
        var labels: [String: String]
        var value: Double
    }
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    var types: [String: String] = [:]
    var help: [String: String] = [:]
    var samples: [Sample] = []

    init(_ text: String) throws {
        guard text.hasSuffix("\n") else { throw Failure(description: "missing final newline") }
        var current: String?
        var seen = Set<String>()
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
            if line.hasPrefix("# HELP ") {
                let rest = line.dropFirst(7)
                guard let space = rest.firstIndex(of: " ") else { throw Failure(description: "bad HELP: \(line)") }
                let name = String(rest[..<space])
                guard Self.isMetricName(name), help[name] == nil else { throw Failure(description: "bad or repeated HELP: \(line)") }
                help[name] = try Self.unescape(rest[rest.index(after: space)...], quote: false)
                current = name
            } else if line.hasPrefix("# TYPE ") {
                let parts = line.dropFirst(7).split(separator: " ")
                guard parts.count == 2, String(parts[0]) == current, types[current!] == nil,
                      ["counter", "gauge", "histogram", "summary", "untyped"].contains(parts[1])
                else { throw Failure(description: "bad TYPE (must follow its HELP): \(line)") }
                types[current!] = String(parts[1])
            } else if line.hasPrefix("#") || line.isEmpty {
                throw Failure(description: "unexpected line: \(line)")
            } else {
                let sample = try Self.parseSample(line)
                guard let family = current, let type = types[family] else { throw Failure(description: "sample before TYPE: \(line)") }
                let allowed = type == "histogram" ? ["_bucket", "_sum", "_count"].map { family + $0 } : [family]
                guard allowed.contains(sample.name) else { throw Failure(description: "\(sample.name) outside family \(family)") }
                if type == "counter" && sample.value < 0 { throw Failure(description: "negative counter: \(line)") }
                let key = sample.name + "\(sample.labels.sorted { $0.key < $1.key })"
                guard seen.insert(key).inserted else { throw Failure(description: "repeated series: \(line)") }
                samples.append(sample)
            }
        }
        for (name, type) in types where type == "histogram" { try checkHistogram(name) }
    }

    func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
        samples.first { $0.name == name && $0.labels == labels }?.value
    }

    private func checkHistogram(_ name: String) throws {
        let buckets = samples.filter { $0.name == name + "_bucket" }
        guard let last = buckets.last, last.labels["le"] == "+Inf" else { throw Failure(description: "\(name): no +Inf bucket") }
        var previousBound = -Double.infinity
        var previousCount = 0.0
        for bucket in buckets {
            guard let bound = bucket.labels["le"].flatMap({ $0 == "+Inf" ? Double.infinity : Double($0) }),
                  bound > previousBound, bucket.value >= previousCount
            else { throw Failure(description: "\(name): buckets not ascending and cumulative") }
            previousBound = bound
            previousCount = bucket.value
        }
        guard value(name + "_count") == last.value, value(name + "_sum") != nil else {
            throw Failure(description: "\(name): _count must equal the +Inf bucket, _sum must exist")
        }
    }

    private static func isMetricName(_ name: some StringProtocol) -> Bool {
        guard let first = name.first, first.isLetter || first == "_" || first == ":" else { return false }
        return name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == ":") }
    }

    private static func parseSample(_ line: Substring) throws -> Sample {
        var rest = line[...]
        let name = String(rest.prefix { $0 != "{" && $0 != " " })
        guard isMetricName(name) else { throw Failure(description: "bad metric name: \(line)") }
        rest = rest.dropFirst(name.count)
        var labels: [String: String] = [:]
        if rest.first == "{" {
            rest = rest.dropFirst()
            while rest.first != "}" {
                let labelName = String(rest.prefix { $0 != "=" })
                guard isMetricName(labelName), !labelName.contains(":"), labels[labelName] == nil,
                      rest.dropFirst(labelName.count).hasPrefix("=\"") else { throw Failure(description: "bad label: \(line)") }
                rest = rest.dropFirst(labelName.count + 2)
                var raw = ""
                var escaped = false
                while let character = rest.first {
                    rest = rest.dropFirst()
                    if escaped { raw.append(character); escaped = false; continue }
                    if character == "\\" { raw.append(character); escaped = true; continue }
                    if character == "\"" { break }
                    if character == "\n" { throw Failure(description: "raw newline in label: \(line)") }
                    raw.append(character)
                }
                labels[labelName] = try unescape(raw[...], quote: true)
                if rest.first == "," { rest = rest.dropFirst() } else if rest.first != "}" {
                    throw Failure(description: "expected , or }: \(line)")
                }
            }
            rest = rest.dropFirst()
        }
        guard rest.first == " " else { throw Failure(description: "expected a space before the value: \(line)") }
        let valueText = rest.dropFirst()
        let value: Double? = switch valueText {
        case "+Inf": .infinity
        case "-Inf": -.infinity
        case "NaN": .nan
        default: valueText.allSatisfy({ "0123456789.eE+-".contains($0) }) ? Double(valueText) : nil
        }
        guard let value else { throw Failure(description: "bad value (timestamps are not expected): \(line)") }
        return Sample(name: name, labels: labels, value: value)
    }

    private static func unescape(_ text: Substring, quote: Bool) throws -> String {
        var out = ""
        var iterator = text.makeIterator()
        while let character = iterator.next() {
            guard character == "\\" else { out.append(character); continue }
            switch iterator.next() {
            case "\\": out.append("\\")
            case "n": out.append("\n")
            case "\"" where quote: out.append("\"")
            default: throw Failure(description: "bad escape in \(text)")
            }
        }
        return out
    }
}

@Suite struct MetricsTests {
    @Test func metrics_renderIsStrictExpositionFormat_SPEC4_4() throws {
        let metrics = Metrics(version: #"1.0 "beta"\n"#)
        metrics.setOpenConnectionsSource { 3 }
        metrics.recordRequest(route: .latest, status: 200, bodyBytes: 100)
        metrics.recordRequest(route: .latest, status: 200, bodyBytes: 50)
        metrics.recordRequest(route: .latest, status: 304, bodyBytes: 0)
        metrics.recordRequest(route: .models, status: 206, bodyBytes: 1 << 33)
        metrics.recordRequest(route: .other, status: 42, bodyBytes: 0)
        metrics.recordEvents(accepted: 5)
        metrics.recordEvents(duplicate: 2)
        metrics.recordEvents(rejected: 1)
        metrics.recordEventBatch()
        metrics.recordEventBatch()
        metrics.recordEventCommit(fsyncNanoseconds: 300_000)
        metrics.recordEventCommit(fsyncNanoseconds: 4_000_000)
        metrics.recordEventCommit(fsyncNanoseconds: 60_000_000_000)
        metrics.recordCatalogReload(releases: 4)
        metrics.recordPublish()
        for _ in 0..<3 { metrics.recordCatalogPoll() }
        metrics.recordGuardInterval()
        metrics.recordSigningRefused()
        metrics.recordSigningRefused()

        let parsed = try ExpositionParser(metrics.render())
        #expect(parsed.value("modeld_http_requests_total", ["route": "latest", "status": "200"]) == 2)
        #expect(parsed.value("modeld_http_requests_total", ["route": "latest", "status": "304"]) == 1)
        #expect(parsed.value("modeld_http_requests_total", ["route": "other", "status": "other"]) == 1)
        #expect(parsed.value("modeld_http_response_body_bytes_total", ["route": "latest"]) == 150)
        #expect(parsed.value("modeld_http_response_body_bytes_total", ["route": "models"]) == Double(1 << 33))
        #expect(parsed.value("modeld_open_connections") == 3)
        #expect(parsed.value("modeld_events_total", ["result": "accepted"]) == 5)
        #expect(parsed.value("modeld_events_total", ["result": "duplicate"]) == 2)
        #expect(parsed.value("modeld_events_total", ["result": "rejected"]) == 1)
        #expect(parsed.value("modeld_event_batches_total") == 2)
        #expect(parsed.value("modeld_event_commits_total") == 3)
        #expect(parsed.value("modeld_fsync_seconds_bucket", ["le": "0.00025"]) == 0)
        #expect(parsed.value("modeld_fsync_seconds_bucket", ["le": "0.0005"]) == 1)
        #expect(parsed.value("modeld_fsync_seconds_bucket", ["le": "0.005"]) == 2)
        #expect(parsed.value("modeld_fsync_seconds_bucket", ["le": "10.0"]) == 2)
        #expect(parsed.value("modeld_fsync_seconds_bucket", ["le": "+Inf"]) == 3)
        #expect(parsed.value("modeld_fsync_seconds_count") == 3)
        #expect(parsed.value("modeld_fsync_seconds_sum") == 60.0043)
        #expect(parsed.value("modeld_catalog_reloads_total") == 1)
        #expect(parsed.value("modeld_catalog_releases") == 4)
        #expect(parsed.value("modeld_publishes_total") == 1)
        #expect(parsed.value("modeld_catalog_polls_total") == 3)
        #expect(parsed.value("modeld_guard_intervals_total") == 1)
        #expect(parsed.value("modeld_signing_refused_total") == 2)
        #expect(parsed.types["modeld_signing_refused_total"] == "counter")
        #expect(parsed.value("modeld_build_info", ["version": "1.0 \"beta\"\\n"]) == 1)
        #expect(parsed.types["modeld_fsync_seconds"] == "histogram")
        #expect(parsed.types["modeld_http_requests_total"] == "counter")
        #expect(parsed.types["modeld_open_connections"] == "gauge")
    }

    @Test func metrics_everyRouteIsALabel_SPEC4_4() throws {
        let parsed = try ExpositionParser(Metrics(version: "dev").render())
        let routes = parsed.samples.filter { $0.name == "modeld_http_response_body_bytes_total" }.compactMap { $0.labels["route"] }
        #expect(routes == ["latest", "check", "events", "models", "admin", "health", "metrics", "other"])  // check: SPEC §17.2
        #expect(!parsed.samples.contains { $0.name == "modeld_http_requests_total" })
    }

    @Test func metrics_labelAndHelpEscaping_SPEC4_4() {
        #expect(MetricsTextWriter.escapeLabel("a\\b\"c\nd") == #"a\\b\"c\nd"#)
        #expect(MetricsTextWriter.escapeHelp("a\\b\"c\nd") == #"a\\b"c\nd"#)
        #expect(MetricsTextWriter.format(.infinity) == "+Inf")
        #expect(MetricsTextWriter.format(.nan) == "NaN")
    }

    @Test func metrics_concurrentRecordingLosesNothing_SPEC4_4() async throws {
        let metrics = Metrics(version: "dev")
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    for index in 0..<10_000 {
                        metrics.recordRequest(route: .events, status: index % 2 == 0 ? 200 : 503, bodyBytes: 1)
                    }
                }
            }
        }
        let parsed = try ExpositionParser(metrics.render())
        #expect(parsed.value("modeld_http_requests_total", ["route": "events", "status": "200"]) == 20_000)
        #expect(parsed.value("modeld_http_requests_total", ["route": "events", "status": "503"]) == 20_000)
        #expect(parsed.value("modeld_http_response_body_bytes_total", ["route": "events"]) == 40_000)
    }
}

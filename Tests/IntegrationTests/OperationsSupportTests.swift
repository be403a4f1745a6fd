// Shared helpers of the Operations*Tests suites (no tests here): one-shot raw-socket requests,
// a strict Prometheus text-format parser, /proc probes.
import ChildProcesses
import Foundation
import Glibc
import HTTPTestSupport
import HTTPWire

enum HTTP {
    /// One request on a fresh connection (`Connection: close`), the whole response.
    static func request(_ port: Int, _ method: String = "GET", _ target: String,
                        headers: [(String, String)] = [], body: [UInt8] = []) throws -> ParsedResponse {
        let client = try RawClient(port: port)
        var text = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        if !body.isEmpty { text += "Content-Length: \(body.count)\r\n" }
        try client.send(Array((text + "\r\n").utf8) + body)
        return try client.readResponse(head: method == "HEAD")
    }

    static func get(_ port: Int, _ target: String, headers: [(String, String)] = []) throws -> ParsedResponse {
        try request(port, "GET", target, headers: headers)
    }

    static func json(_ response: ParsedResponse) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any]
    }
}

/// Open file descriptors of a process (Linux /proc).
func openFileDescriptors(pid: Int32) -> Int {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? -1
}

// MARK: - Prometheus text format (version 0.0.4), strict

/// One sample line: metric name, labels, value.
struct PromSample: Equatable {
    var name: String
    var labels: [String: String]
    var value: Double
}

struct PromFamily {
    var name: String
    var type: String
    var help: String?
    var samples: [PromSample] = []
}

struct PromParseError: Error, CustomStringConvertible {
    let line: Int
    let reason: String
    var description: String { "line \(line): \(reason)" }
}

/// A strict parser of the Prometheus text exposition format: every line is a HELP, a TYPE, a
/// comment or a sample; names and label names match the grammar, label values use only the
/// allowed escapes, values parse as Go floats; TYPE comes once per family and before its samples;
/// a family's samples are contiguous; no sample (name + label set) repeats; histograms have
/// `le` buckets that are cumulative and end in +Inf equal to `_count`, plus `_sum`.
enum PrometheusText {
    static func parse(_ text: String) throws -> [String: PromFamily] {
        guard text.isEmpty || text.hasSuffix("\n") else { throw PromParseError(line: 0, reason: "output does not end with a newline") }
        var families: [String: PromFamily] = [:]
        var order: [String] = []
        var finished = Set<String>()
        var current: String?
        var seen = Set<String>()
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        for (index, raw) in lines.enumerated() {
            let number = index + 1
            let line = String(raw)
            func fail(_ reason: String) -> PromParseError { PromParseError(line: number, reason: "\(reason): \(line.debugDescription)") }
            if line.isEmpty { continue }
            if line.hasPrefix("#") {
                let parts = line.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false).map(String.init)
                guard parts.count >= 3, parts[0] == "#", parts[1] == "HELP" || parts[1] == "TYPE" else { continue }
                let name = parts[2]
                guard isMetricName(name) else { throw fail("bad metric name in \(parts[1])") }
                if finished.contains(name) && current != name { throw fail("family \(name) reopened") }
                if current != name, let c = current { finished.insert(c) }
                current = name
                var family = families[name] ?? PromFamily(name: name, type: "untyped")
                if families[name] == nil { order.append(name) }
                if parts[1] == "TYPE" {
                    guard parts.count == 4, ["counter", "gauge", "histogram", "summary", "untyped"].contains(parts[3]) else { throw fail("bad TYPE") }
                    guard family.samples.isEmpty else { throw fail("TYPE after samples") }
                    guard families[name]?.type ?? "untyped" == "untyped" || families[name] == nil else { throw fail("second TYPE") }
                    family.type = parts[3]
                } else {
                    guard family.help == nil else { throw fail("second HELP") }
                    family.help = parts.count == 4 ? parts[3] : ""
                }
                families[name] = family
                continue
            }
            let sample = try parseSample(line, number: number)
            let familyName = familyOf(sample.name, families: families)
            if finished.contains(familyName) { throw fail("samples of \(familyName) are not contiguous") }
            if current != familyName, let c = current { finished.insert(c) }
            current = familyName
            let key = sample.name + "{" + sample.labels.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",") + "}"
            guard seen.insert(key).inserted else { throw fail("duplicate sample") }
            if families[familyName] == nil { order.append(familyName); families[familyName] = PromFamily(name: familyName, type: "untyped") }
            families[familyName]!.samples.append(sample)
        }
        for family in families.values where family.type == "histogram" {
            try checkHistogram(family)
        }
        for family in families.values where family.type == "counter" {
            for s in family.samples where s.value < 0 || s.value.isNaN { throw PromParseError(line: 0, reason: "counter \(s.name) is \(s.value)") }
        }
        return families
    }

    private static func familyOf(_ name: String, families: [String: PromFamily]) -> String {
        for suffix in ["_bucket", "_sum", "_count"] where name.hasSuffix(suffix) {
            let base = String(name.dropLast(suffix.count))
            if let f = families[base], f.type == "histogram" || f.type == "summary" { return base }
        }
        return name
    }

    private static func checkHistogram(_ family: PromFamily) throws {
        let fail = { (reason: String) in PromParseError(line: 0, reason: "histogram \(family.name): \(reason)") }
        let buckets = family.samples.filter { $0.name == family.name + "_bucket" }
        guard let count = family.samples.first(where: { $0.name == family.name + "_count" }) else { throw fail("no _count") }
        guard family.samples.contains(where: { $0.name == family.name + "_sum" }) else { throw fail("no _sum") }
        guard !buckets.isEmpty else { throw fail("no buckets") }
        var previousBound = -Double.infinity, previousValue = 0.0
        for bucket in buckets {
            guard let le = bucket.labels["le"], let bound = goFloat(le) else { throw fail("bucket without a valid le") }
            guard bound > previousBound else { throw fail("le not increasing") }
            guard bucket.value >= previousValue else { throw fail("buckets not cumulative") }
            previousBound = bound
            previousValue = bucket.value
        }
        guard previousBound == .infinity else { throw fail("last bucket is not +Inf") }
        guard previousValue == count.value else { throw fail("+Inf bucket \(previousValue) != _count \(count.value)") }
    }

    private static func parseSample(_ line: String, number: Int) throws -> PromSample {
        let fail = { (reason: String) in PromParseError(line: number, reason: "\(reason): \(line.debugDescription)") }
        let chars = Array(line.unicodeScalars)
        var i = 0
        var name = ""
        while i < chars.count, chars[i] != "{", chars[i] != " " { name.unicodeScalars.append(chars[i]); i += 1 }
        guard isMetricName(name) else { throw fail("bad metric name") }
        var labels: [String: String] = [:]
        if i < chars.count, chars[i] == "{" {
            i += 1
            while true {
                guard i < chars.count else { throw fail("unterminated labels") }
                if chars[i] == "}" { i += 1; break }
                var label = ""
                while i < chars.count, chars[i] != "=" { label.unicodeScalars.append(chars[i]); i += 1 }
                guard isLabelName(label), !label.hasPrefix("__") else { throw fail("bad label name \(label)") }
                guard i + 1 < chars.count, chars[i] == "=", chars[i + 1] == "\"" else { throw fail("label without =\"") }
                i += 2
                var value = ""
                while true {
                    guard i < chars.count else { throw fail("unterminated label value") }
                    let c = chars[i]
                    if c == "\"" { i += 1; break }
                    if c == "\n" { throw fail("raw newline in label value") }
                    if c == "\\" {
                        guard i + 1 < chars.count else { throw fail("dangling backslash") }
                        switch chars[i + 1] {
                        case "\\": value += "\\"
                        case "\"": value += "\""
                        case "n": value += "\n"
                        default: throw fail("bad escape")
                        }
                        i += 2
                        continue
                    }
                    value.unicodeScalars.append(c)
                    i += 1
                }
                guard labels.updateValue(value, forKey: label) == nil else { throw fail("label \(label) repeated") }
                guard i < chars.count else { throw fail("unterminated labels") }
                if chars[i] == "," { i += 1; continue }
                guard chars[i] == "}" else { throw fail("expected , or }") }
            }
        }
        guard i < chars.count, chars[i] == " " else { throw fail("no space before the value") }
        let rest = String(String.UnicodeScalarView(chars[(i + 1)...])).split(separator: " ", omittingEmptySubsequences: false)
        guard rest.count == 1 || rest.count == 2, let value = goFloat(String(rest[0])) else { throw fail("bad value") }
        if rest.count == 2 { guard Int64(rest[1]) != nil else { throw fail("bad timestamp") } }
        return PromSample(name: name, labels: labels, value: value)
    }

    static func goFloat(_ text: String) -> Double? {
        switch text {
        case "+Inf", "Inf": return .infinity
        case "-Inf": return -.infinity
        case "NaN": return .nan
        default:
            guard !text.isEmpty, text.allSatisfy({ "0123456789.eE+-".contains($0) }) else { return nil }
            return Double(text)
        }
    }

    static func isMetricName(_ s: String) -> Bool {
        guard let first = s.unicodeScalars.first, first.isASCIILetter || first == "_" || first == ":" else { return false }
        return s.unicodeScalars.allSatisfy { $0.isASCIILetter || $0.isASCIIDigit || $0 == "_" || $0 == ":" }
    }

    static func isLabelName(_ s: String) -> Bool {
        guard let first = s.unicodeScalars.first, first.isASCIILetter || first == "_" else { return false }
        return s.unicodeScalars.allSatisfy { $0.isASCIILetter || $0.isASCIIDigit || $0 == "_" }
    }
}

extension Unicode.Scalar {
    fileprivate var isASCIILetter: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) }
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}

extension Dictionary where Key == String, Value == PromFamily {
    /// The value of the sample `name{labels}` (labels must match exactly), or nil.
    func value(_ family: String, _ name: String? = nil, _ labels: [String: String] = [:]) -> Double? {
        self[family]?.samples.first { $0.name == (name ?? family) && $0.labels == labels }?.value
    }
}

// MARK: - Fixtures on a running server

extension ModeldServer {
    /// Publishes `size` random bytes through the admin API (curl, streamed from a file) and
    /// returns the release document (`id`, `file`, `size`, …).
    func publishRandomModel(size: Int, sdkMin: String = "1.0", ext: String = "bin") throws -> [String: Any] {
        let file = root.appendingPathComponent("upload-\(UUID().uuidString).\(ext)")
        let dd = try ChildProcess.run(URL(fileURLWithPath: "/bin/dd"),
                                      ["if=/dev/urandom", "of=\(file.path)", "bs=1048576", "count=\(size >> 20)", "status=none"])
        guard dd.status == 0 else { throw RawClientError("dd failed: \(dd.stderr)") }
        if size & ((1 << 20) - 1) != 0 {
            let handle = try FileHandle(forWritingTo: file)
            try handle.seekToEnd()
            try handle.write(contentsOf: Data(repeating: 0x5a, count: size & ((1 << 20) - 1)))
            try handle.close()
        }
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try ChildProcess.run(URL(fileURLWithPath: "/usr/bin/curl"), [
            "-sS", "--max-time", "60", "-X", "POST", "-H", "Authorization: Bearer \(token)",
            "-H", "Content-Type: application/octet-stream", "--data-binary", "@\(file.path)",
            "\(url)/admin/models?sdk_min=\(sdkMin)&ext=\(ext)",
        ])
        guard result.status == 0,
              let object = (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8))) as? [String: Any],
              object["id"] != nil
        else { throw RawClientError("publish failed: \(result.status) \(result.stdout) \(result.stderr)") }
        return object
    }

    /// The access log file of this instance (the only `access-*.log` in data/).
    var accessLogFile: URL? {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dataDir.path)) ?? []
        return names.first { $0.hasPrefix("access-") && $0.hasSuffix(".log") }.map { dataDir.appendingPathComponent($0) }
    }

    /// Every access-log line parsed as a JSON object (a line that is not one fails the caller's check as nil).
    func accessLogRecords() -> [[String: Any]?] {
        guard let file = accessLogFile, let text = try? String(contentsOf: file, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").map { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] }
    }

    /// The parsed /metrics of this server (strict parser), fetched on a fresh connection.
    func scrapeMetrics() throws -> [String: PromFamily] {
        let response = try HTTP.get(port, "/metrics")
        guard response.status == 200 else { throw RawClientError("/metrics answered \(response.status)") }
        return try PrometheusText.parse(response.text)
    }
}

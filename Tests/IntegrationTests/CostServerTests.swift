import ChildProcesses
import Foundation
import HTTPTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `modelctl cost report` and `cost rollout` against the real modeld (SPEC §6, §7.2): real curl
/// traffic (full downloads, a ranged resume, a 304, /latest polls) and a raw socket that walks
/// away mid-download; the server is stopped with SIGTERM so the access log is flushed, then the
/// report must add up exactly what the log says was sent.
@Suite(.serialized) final class CostServerTests {
    static let pricing = ModeldServer.repositoryRoot.appendingPathComponent("config/pricing.json").path
    static let curl = URL(fileURLWithPath: "/usr/bin/curl")
    static let smallSize = 1_000_000
    static let bigSize = 24_000_000
    static let fullDownloads = 3
    static let polls = 4
    static let rangeStart = 400_000

    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("cost-it-\(UUID().uuidString)")

    init() throws { try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true) }
    deinit { try? FileManager.default.removeItem(at: scratch) }

    // MARK: helpers

    func modelctl(_ arguments: [String]) throws -> ProcessResult {
        try ChildProcess.run(TestBinaries.modelctl, arguments, timeout: .seconds(60))
    }

    func randomFile(_ name: String, size: Int) throws -> URL {
        let random = try #require(FileHandle(forReadingAtPath: "/dev/urandom"))
        var data = Data()
        while data.count < size { data.append(random.readData(ofLength: min(1 << 20, size - data.count))) }
        let file = scratch.appendingPathComponent(name)
        try data.write(to: file)
        return file
    }

    func publish(_ server: ModeldServer, _ file: URL, rollout: Int = 100) throws -> [String: Any] {
        let r = try modelctl(["publish", file.path, "--sdk-min", "2.3", "--rollout", String(rollout),
                              "--server", server.url, "--token", server.token, "--json"])
        try #require(r.status == 0, "\(r.stderr)")
        return try #require(JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
    }

    /// Runs curl; `-w` prints "<status> <bytes received>".
    func curl(_ arguments: [String]) throws -> (status: Int, bytes: Int) {
        let r = try ChildProcess.run(Self.curl, ["-s", "-o", "/dev/null", "-w", "%{http_code} %{size_download}"] + arguments, timeout: .seconds(30))
        try #require(r.status == 0, "curl \(arguments): \(r.stderr)")
        let parts = r.stdout.split(separator: " ").compactMap { Int($0) }
        try #require(parts.count == 2, "curl -w output: \(r.stdout)")
        return (parts[0], parts[1])
    }

    /// Count of `modeld_http_requests_total{route=…,status=…}` from /metrics.
    func requests(_ server: ModeldServer, route: String, status: Int) throws -> Int {
        let r = try ChildProcess.run(Self.curl, ["-s", server.url + "/metrics"], timeout: .seconds(10))
        for line in r.stdout.split(separator: "\n") where line.hasPrefix("modeld_http_requests_total{")
            && line.contains("route=\"\(route)\"") && line.contains("status=\"\(status)\"") {
            return Int(Double(line.split(separator: " ").last ?? "") ?? 0)
        }
        return 0
    }

    /// A GET on a raw socket with a small receive buffer that reads `keep` body bytes, then
    /// closes: the server's write fails part-way. Returns body bytes received and Content-Length.
    func abortedDownload(port: Int, path: String, keep: Int) throws -> (received: Int, contentLength: Int) {
        let client = try RawClient(port: port, receiveBuffer: 16 * 1024)
        defer { client.close() }
        try client.send("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        let head = try client.readHead()
        try #require(head.status == 200, "status \(head.status)")
        let contentLength = try #require(head.headers["Content-Length"].flatMap { Int($0) }, "no Content-Length")
        let received = client.read(atLeast: keep)
        try #require(received >= keep, "connection ended after \(received) body bytes")
        return (received, contentLength)
    }

    /// Every record in the server's access log(s), parsed independently of EgressCost.
    static func accessLog(_ dataDir: URL) throws -> (files: [String], records: [[String: Any]]) {
        let names = try FileManager.default.contentsOfDirectory(atPath: dataDir.path)
            .filter { $0.hasPrefix("access-") && $0.contains(".log") }.sorted()
        var records = [[String: Any]]()
        for name in names {
            let text = try String(contentsOfFile: dataDir.appendingPathComponent(name).path, encoding: .utf8)
            for line in text.split(separator: "\n") where !line.isEmpty {
                records.append(try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)"))
            }
        }
        return (names.map { dataDir.appendingPathComponent($0).path }, records)
    }

    // MARK: the traffic

    /// What the test sent and saw; the server is stopped and its log flushed when this returns.
    struct Traffic {
        var small: [String: Any] = [:]
        var big: [String: Any] = [:]
        var smallPath = "", bigPath = ""
        var latestBytes = 0
        var aborted = (received: 0, contentLength: 0)
        var logFiles = [String]()
        var records = [[String: Any]]()
    }

    func driveTraffic() throws -> Traffic {
        let server = try ModeldServer(empty: true)
        var t = Traffic()
        t.small = try publish(server, try randomFile("small.zip", size: Self.smallSize))
        t.big = try publish(server, try randomFile("big.zip", size: Self.bigSize))
        t.smallPath = "/models/\(t.small["id"] as! String).\(t.small["ext"] as! String)"
        t.bigPath = "/models/\(t.big["id"] as! String).\(t.big["ext"] as! String)"
        #expect(t.small["size"] as? Int == Self.smallSize)

        // Full downloads: the first one records the ETag.
        let headers = scratch.appendingPathComponent("headers")
        for i in 0..<Self.fullDownloads {
            let r = try curl((i == 0 ? ["-D", headers.path] : []) + [server.url + t.smallPath])
            #expect(r.status == 200 && r.bytes == Self.smallSize)
        }
        let headerText = try String(contentsOf: headers, encoding: .utf8)
        let etag = try #require(headerText.split(separator: "\r\n").first { $0.lowercased().hasPrefix("etag:") }?
            .dropFirst(5).trimmingCharacters(in: .whitespaces), "\(headerText)")

        // A ranged resume and a revalidation.
        let resumed = try curl(["-H", "Range: bytes=\(Self.rangeStart)-", server.url + t.smallPath])
        #expect(resumed.status == 206 && resumed.bytes == Self.smallSize - Self.rangeStart)
        let revalidated = try curl(["-H", "If-None-Match: \(etag)", server.url + t.smallPath])
        #expect(revalidated.status == 304 && revalidated.bytes == 0)

        // Update checks.
        for _ in 0..<Self.polls {
            let r = try curl([server.url + "/latest?sdk=2.3&channel=stable"])
            #expect(r.status == 200 && r.bytes > 0)
            t.latestBytes += r.bytes
        }

        // A client that walks away after 100 kB of a 24 MB file.
        t.aborted = try abortedDownload(port: server.port, path: t.bigPath, keep: 100_000)
        #expect(t.aborted.contentLength == Self.bigSize)

        // Bounded wait until the server has finished every model exchange (its write to the
        // closed socket failed), then SIGTERM flushes the access log.
        let finished = try ModeldServer.eventually(within: 20) {
            try requests(server, route: "models", status: 200) == Self.fullDownloads + 1
        }
        #expect(finished, "the aborted download was not finished by the server")
        server.signal(SIGTERM)
        #expect(server.waitForExit(within: 30) == 0, "\(server.log)")
        let (files, records) = try Self.accessLog(server.dataDir)
        try #require(!files.isEmpty, "no access log in \(server.dataDir.path)")
        // The server's directories go with it: keep the logs.
        t.records = records
        t.logFiles = try files.map { file in
            let copy = scratch.appendingPathComponent(URL(fileURLWithPath: file).lastPathComponent)
            try FileManager.default.copyItem(atPath: file, toPath: copy.path)
            return copy.path
        }
        return t
    }

    func report(_ t: Traffic, _ extra: [String]) throws -> ProcessResult {
        try modelctl(["cost", "report", "--access-log"] + t.logFiles + ["--pricing", Self.pricing] + extra)
    }

    static func sum(_ records: [[String: Any]], _ include: ([String: Any]) -> Bool = { _ in true }) -> Int {
        records.filter(include).reduce(0) { $0 + ($1["bytes"] as? Int ?? 0) }
    }

    // MARK: tests

    @Test func report_sumsExactlyTheLoggedBytes_SPEC6_7_2() throws {
        let t = try driveTraffic()
        let path = { (p: String) in { (r: [String: Any]) in r["path"] as? String == p } }
        let records = t.records

        // The log itself: complete responses logged with the bytes the client got.
        let smallRecords = records.filter(path(t.smallPath))
        #expect(smallRecords.filter { $0["status"] as? Int == 200 }.map { $0["bytes"] as? Int } == Array(repeating: Self.smallSize, count: Self.fullDownloads))
        let ranged = try #require(smallRecords.first { $0["status"] as? Int == 206 })
        #expect(ranged["bytes"] as? Int == Self.smallSize - Self.rangeStart)
        #expect(ranged["range"] as? Bool == true)
        let notModified = try #require(smallRecords.first { $0["status"] as? Int == 304 })
        #expect(notModified["bytes"] as? Int == 0)
        #expect(Self.sum(records, { $0["route"] as? String == "latest" }) == t.latestBytes)
        #expect(records.filter { $0["route"] as? String == "latest" }.count == Self.polls)
        // The aborted one: more than the client read, less than Content-Length.
        let abortedRecord = try #require(records.first(where: path(t.bigPath)))
        let abortedBytes = try #require(abortedRecord["bytes"] as? Int)
        #expect(abortedBytes >= t.aborted.received && abortedBytes < t.aborted.contentLength,
                "logged \(abortedBytes), client read \(t.aborted.received) of \(t.aborted.contentLength)")

        // The report adds up exactly that.
        let r = try report(t, ["--format", "json", "--no-free-tier", "--gb-unit", "si"])
        #expect(r.status == 0, "\(r.stderr)")
        let json = try #require(JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let totals = try #require(json["totals"] as? [String: Any])
        let modelBytes = Self.fullDownloads * Self.smallSize + (Self.smallSize - Self.rangeStart)
        #expect(totals["bytes"] as? Int == Self.sum(records))
        #expect(totals["requests"] as? Int == records.count)
        #expect(Self.sum(records) == modelBytes + abortedBytes + t.latestBytes + Self.sum(records) {
            !["models", "latest"].contains($0["route"] as? String ?? "") })

        func rows(_ key: String, _ name: String) throws -> [String: (bytes: Int, requests: Int)] {
            let list = try #require(json[key] as? [[String: Any]])
            return Dictionary(uniqueKeysWithValues: list.map { ($0[name] as? String ?? "", ($0["bytes"] as? Int ?? -1, $0["requests"] as? Int ?? -1)) })
        }
        let byRoute = try rows("by_route", "route")
        #expect(byRoute["models"]?.bytes == modelBytes + abortedBytes)
        #expect(byRoute["models"]?.requests == Self.fullDownloads + 3)
        #expect(byRoute["latest"]?.bytes == t.latestBytes)
        #expect(byRoute["latest"]?.requests == Self.polls)
        #expect(byRoute.values.reduce(0) { $0 + $1.bytes } == Self.sum(records))
        let byModel = try rows("by_model", "model_id")
        #expect(byModel[t.small["id"] as! String]?.bytes == modelBytes)
        #expect(byModel[t.small["id"] as! String]?.requests == Self.fullDownloads + 2)
        #expect(byModel[t.big["id"] as! String]?.bytes == abortedBytes)
        #expect(byModel[t.big["id"] as! String]?.requests == 1)
        let byDay = try rows("by_day", "day")
        #expect(byDay.values.reduce(0) { $0 + $1.bytes } == Self.sum(records))

        let notModifiedJSON = try #require(json["not_modified"] as? [String: Any])
        #expect(notModifiedJSON["count"] as? Int == 1)
        #expect(notModifiedJSON["bytes_saved"] as? Int == Self.smallSize)
        let ranges = try #require(json["range_resumes"] as? [String: Any])
        #expect(ranges["count"] as? Int == 1)
        #expect(ranges["bytes"] as? Int == Self.smallSize - Self.rangeStart)
        let providers = try #require(json["providers"] as? [[String: Any]])
        let s3 = try #require(providers.first { $0["id"] as? String == "aws-s3" })
        // egress_gb is the same bytes in SI GB, rounded to 6 places.
        let gb = try #require((s3["egress_gb"] as? NSNumber)?.doubleValue)
        #expect(abs(gb - Double(Self.sum(records)) / 1e9) <= 0.5e-6, "\(gb)")

        try otherFormats(t, total: Self.sum(records), modelBytes: modelBytes + abortedBytes)
    }

    /// csv, table and html of the same log.
    func otherFormats(_ t: Traffic, total: Int, modelBytes: Int) throws {
        let csv = try report(t, ["--format", "csv"])
        #expect(csv.status == 0, "\(csv.stderr)")
        let csvLines = csv.stdout.split(whereSeparator: \.isNewline).map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        #expect(csvLines.first?.prefix(4) == ["section", "key", "bytes", "requests"])
        #expect(csvLines.contains { $0.prefix(3) == ["total", "", String(total)] }, "\(csv.stdout)")
        #expect(csvLines.contains { $0.prefix(4) == ["not_modified", "304", String(Self.smallSize), "1"] }, "\(csv.stdout)")
        #expect(csvLines.contains { $0.prefix(4) == ["range_resume", "206", String(Self.smallSize - Self.rangeStart), "1"] })
        #expect(csvLines.contains { $0.prefix(3) == ["route", "models", String(modelBytes)] })
        #expect(csvLines.contains { $0.first == "cost" && $0.dropFirst().first == "aws-s3" })

        let table = try report(t, ["--format", "table"])
        #expect(table.status == 0, "\(table.stderr)")
        #expect(table.stdout.contains("304 Not Modified: 1"), "\(table.stdout)")
        #expect(table.stdout.contains("Range resumes (206): 1"), "\(table.stdout)")
        let grouped = { (n: Int) in n.formatted(.number.grouping(.automatic).locale(Locale(identifier: "en_US"))) }
        #expect(table.stdout.contains(grouped(total)), "total \(grouped(total)) in\n\(table.stdout)")
        #expect(table.stdout.contains("By route") && table.stdout.contains("By model"))
        #expect(table.stdout.contains("aws-s3") && table.stdout.contains("Monthly projection"))

        let html = scratch.appendingPathComponent("report.html")
        let h = try report(t, ["--format", "html", "--out", html.path])
        #expect(h.status == 0, "\(h.stderr)")
        #expect(h.stdout.isEmpty, "--out writes the file, not stdout")
        let page = try String(contentsOf: html, encoding: .utf8)
        #expect(page.contains("<svg"))
        #expect(!page.lowercased().contains("<script"))
        for attribute in ["src=\"http", "href=\"http", "url(http", "@import", "src='http", "href='http"] {
            #expect(!page.contains(attribute), "external asset: \(attribute)")
        }
        #expect(page.contains(t.small["id"] as! String))
    }

    @Test func rollout_pricesTheReleaseFromTheServerAndFromDisk_SPEC7_2() throws {
        let server = try ModeldServer(empty: true)
        let release = try publish(server, try randomFile("model.zip", size: Self.smallSize), rollout: 25)
        let id = try #require(release["id"] as? String)
        let common = ["--installs", "4000000", "--provider", "aws-s3", "--no-free-tier", "--gb-unit", "si", "--pricing", Self.pricing]

        // 25 % of 4 M installs = 1 M downloads × 1,000,000 B = 1,000 GB: $90.00 + $0.40 of GETs.
        let live = try modelctl(["cost", "rollout", id, "--server", server.url, "--token", server.token, "--format", "json"] + common)
        #expect(live.status == 0, "\(live.stderr)")
        let json = try #require(JSONSerialization.jsonObject(with: Data(live.stdout.utf8)) as? [String: Any])
        let r = try #require(json["release"] as? [String: Any])
        #expect(r["id"] as? String == id && r["size"] as? Int == Self.smallSize && r["rollout_percent"] as? Int == 25)
        #expect(r["installs"] as? Int == 4_000_000)
        let inputs = try #require(json["inputs"] as? [String: Any])
        #expect(inputs["downloads"] as? Int == 1_000_000)
        #expect(inputs["size_bytes"] as? Int == Self.smallSize)
        let s3 = try #require((json["providers"] as? [[String: Any]])?.first)
        #expect(CostCLITests.usd(s3["egress_usd"]) == "90.00")
        #expect(CostCLITests.usd(s3["requests_usd"]) == "0.40")
        #expect(CostCLITests.usd(s3["total_usd"]) == "90.40")

        // Offline, from catalog.json: the same answer.
        let offline = try modelctl(["cost", "rollout", id, "--models-dir", server.modelsDir.path, "--format", "json"] + common)
        #expect(offline.status == 0, "\(offline.stderr)")
        #expect(offline.stdout == live.stdout)
        let globalJSON = try modelctl(["cost", "rollout", id, "--models-dir", server.modelsDir.path, "--json"] + common)
        #expect(globalJSON.stdout == live.stdout, "--json is --format json")

        // A rollout change on the server is what gets priced.
        let patched = try modelctl(["rollout", id, "50", "--server", server.url, "--token", server.token])
        #expect(patched.status == 0, "\(patched.stderr)")
        let table = try modelctl(["cost", "rollout", id, "--server", server.url, "--token", server.token] + common)
        #expect(table.status == 0, "\(table.stderr)")
        #expect(table.stdout.contains("rollout 50%") && table.stdout.contains("2,000,000 downloads"), "\(table.stdout)")
        let s3Row = try #require(table.stdout.split(separator: "\n").first { $0.hasPrefix("aws-s3") })
        #expect(s3Row.split(separator: " ").contains("180.00") && s3Row.split(separator: " ").contains("180.80"), "\(s3Row)")

        let csv = try modelctl(["cost", "rollout", id, "--models-dir", server.modelsDir.path, "--format", "csv"] + common)
        #expect(csv.status == 0 && csv.stdout.hasPrefix("id,name,egress_gb"), "\(csv.stderr)")

        // Errors: unknown release (404 from the server, absent offline), wrong token, no --installs.
        let unknown = UUID().uuidString.lowercased()
        let missing = try modelctl(["cost", "rollout", unknown, "--server", server.url, "--token", server.token] + common)
        #expect(missing.status == 1 && missing.stderr.contains("404"), "\(missing.stderr)")
        let missingOffline = try modelctl(["cost", "rollout", unknown, "--models-dir", server.modelsDir.path] + common)
        #expect(missingOffline.status == 1 && missingOffline.stderr.contains(unknown), "\(missingOffline.stderr)")
        let unauthorized = try modelctl(["cost", "rollout", id, "--server", server.url, "--token", "wrong"] + common)
        #expect(unauthorized.status == 1 && unauthorized.stderr.contains("401"), "\(unauthorized.stderr)")
        let noInstalls = try modelctl(["cost", "rollout", id, "--models-dir", server.modelsDir.path, "--pricing", Self.pricing])
        #expect(noInstalls.status == 2 && noInstalls.stderr.contains("--installs"), "\(noInstalls.stderr)")
        let badID = try modelctl(["cost", "rollout", "not-a-uuid", "--installs", "5", "--models-dir", server.modelsDir.path])
        #expect(badID.status == 2, "\(badID.stderr)")
    }
}

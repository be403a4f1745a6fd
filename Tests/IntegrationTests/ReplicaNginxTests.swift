import ChildProcesses
import Foundation
import NginxProxySupport
import HTTPTestSupport
import Testing

/// SPEC §9 on one machine: the shipped nginx front (`scripts/nginx-cache-proxy.sh`) in front of two
/// real modeld replicas A and B sharing one models/ and one data/ directory. Every claim is read
/// from what the processes did — the replicas' access logs and event segments, nginx's
/// X-Cache-Status and access log — never inferred; every wait is bounded.
@Suite(.serialized) final class ReplicaNginxTests {
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("replica-it-\(UUID().uuidString.prefix(8))")

    init() throws { try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true) }
    deinit { try? FileManager.default.removeItem(at: scratch) }

    /// Two replicas on one fresh shared root (demo model included), `/latest` max-age 1 s.
    private func replicas() throws -> (ModeldServer, ModeldServer) {
        let root = scratch.appendingPathComponent("shared")
        let common = ["MODELD_LATEST_MAX_AGE_SECONDS": "1"]
        let a = try ModeldServer(environment: common.merging(["MODELD_INSTANCE_ID": "a"]) { $1 }, root: root)
        let b = try ModeldServer(environment: common.merging(["MODELD_INSTANCE_ID": "b"]) { $1 }, root: root)
        return (a, b)
    }

    private func modelctl(_ arguments: [String]) throws -> ProcessResult {
        try ChildProcess.run(TestBinaries.modelctl, arguments, timeout: .seconds(30))
    }

    private func randomFile(_ name: String, size: Int) throws -> (URL, Data) {
        let random = try #require(FileHandle(forReadingAtPath: "/dev/urandom"))
        let data = try #require(try random.read(upToCount: size))
        let file = scratch.appendingPathComponent(name)
        try data.write(to: file)
        return (file, data)
    }

    private func publish(_ file: URL, via server: ModeldServer, _ extra: [String] = []) throws -> [String: Any] {
        let result = try modelctl(["publish", file.path, "--sdk-min", "2.3", "--server", server.url, "--token", server.token, "--json"] + extra)
        try #require(result.status == 0, "modelctl publish: \(result.stderr)")
        return try #require(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    }

    /// The replica's access log (SPEC §6), one decoded object per line.
    private func accessLog(_ server: ModeldServer, instance: String) -> [[String: Any]] {
        let text = (try? String(contentsOf: server.dataDir.appendingPathComponent("access-\(instance).log"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    /// `modelctl events export` over the shared data/: events per (client_id, batch_id).
    private func exportedBatches(_ dataDir: URL) throws -> (events: [String: [[String: Any]]], raw: String) {
        let result = try modelctl(["events", "export", "--data-dir", dataDir.path])
        try #require(result.status == 0, "modelctl events export: \(result.stderr)")
        var batches: [String: [[String: Any]]] = [:]
        for line in result.stdout.split(separator: "\n") {
            let event = try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "export line \(line)")
            let key = "\(event["client_id"] as? String ?? "-")/\(event["batch_id"] as? String ?? "-")"
            batches[key, default: []].append(event)
        }
        return (batches, result.stdout)
    }

    private static func eventBody(client: String, batch: String, events: Int = 2) -> Data {
        let list = (0..<events).map { i in
            #"{"name":"upsell_prompt","ts":"2026-11-22T22:00:00Z","outcome":"purchased","value":\#(i),"props":{"i":\#(i)}}"#
        }
        return Data(#"{"batch_id":"\#(batch)","client_id":"\#(client)","events":[\#(list.joined(separator: ","))]}"#.utf8)
    }

    /// `POST /events`, or with `updateCheck` `POST /latest?sdk=1.0` (the demo model answers).
    private static func postEvents(_ port: Int, client: String, batch: String, updateCheck: Bool = false) -> ProxyReply {
        ProxyReply.send(port: port, method: "POST", path: updateCheck ? "/latest?sdk=1.0" : "/events",
                       headers: ["Content-Type": "application/json"], body: eventBody(client: client, batch: batch))
    }

    /// Every segment under data/events/<day>/ (`<instance>-<NNNNNN>.jsonl`).
    private func segmentFiles(_ dataDir: URL) -> [URL] {
        let events = dataDir.appendingPathComponent("events")
        let days = (try? FileManager.default.contentsOfDirectory(atPath: events.path)) ?? []
        return days.flatMap { day in
            let dir = events.appendingPathComponent(day)
            return ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? [])
                .filter { $0.hasSuffix(".jsonl") }.map { dir.appendingPathComponent($0) }
        }
    }

    private func segmentNames(_ dataDir: URL) -> [String] { segmentFiles(dataDir).map(\.lastPathComponent) }

    /// Every line of every segment, undeduplicated (what a naive reader of data/events/ sees).
    private func segmentLines(_ dataDir: URL) -> [Substring] {
        segmentFiles(dataDir).flatMap { ((try? String(contentsOf: $0, encoding: .utf8)) ?? "").split(separator: "\n") }
    }

    // MARK: - The scenario of the issue, one step after the other

    @Test func publishPropagationCachingAndEventsThroughNginx_SPEC9() throws {
        let (a, b) = try replicas()
        let nginx = try NginxProxy(upstreams: ["127.0.0.1:\(a.port)", "127.0.0.1:\(b.port)"])

        // 1. Publish through A; B serves it within 2 s (its catalog watcher, no SIGHUP).
        let size = 3 << 20 + 4321
        let (file, bytes) = try randomFile("weights.gguf", size: size)
        let release = try publish(file, via: a)
        let id = try #require(release["id"] as? String)
        let path = "/models/\(try #require(release["file"] as? String))"
        let published = Date()
        var lastOnB = ""
        let propagated = ModeldServer.eventually(within: 2) {
            let reply = ProxyReply.send(port: b.port, path: "/latest?sdk=2.3")
            lastOnB = "\(reply.status) \(reply.text.prefix(200))"
            return reply.status == 200 && (reply.json?["id"] as? String) == id
        }
        #expect(propagated, "B did not serve \(id) within 2 s of the publish through A; last answer: \(lastOnB)")
        let propagation = Date().timeIntervalSince(published)

        // 2. 50 concurrent cold downloads through nginx: each origin sends the file at most once.
        let front = nginx.port
        let downloads = ProxyReply.parallel(50, within: 60) { _ in ProxyReply.send(port: front, path: path, timeout: 30) }
        #expect(downloads.count == 50)
        var cacheStatuses: [String: Int] = [:]
        for reply in downloads {
            cacheStatuses[reply.headers["x-cache-status"] ?? "none", default: 0] += 1
            #expect(reply.status == 200 && reply.body == bytes, "download: \(reply.status) \(reply.body.count) bytes \(reply.error ?? "")")
        }

        // 3. /latest through nginx is revalidated (If-None-Match → 304 from an origin) once it expires.
        let first = ProxyReply.send(port: nginx.port, path: "/latest?sdk=2.3")
        #expect(first.status == 200 && (first.json?["id"] as? String) == id, "\(first.status) \(first.text)")
        #expect(first.headers["cache-control"] == "public, max-age=1")
        var latestStatuses: [String] = []
        let revalidated = ModeldServer.eventually(within: 6) {
            let reply = ProxyReply.send(port: nginx.port, path: "/latest?sdk=2.3")
            latestStatuses.append("\(reply.status) \(reply.headers["x-cache-status"] ?? "-")")
            return reply.status == 200 && reply.headers["x-cache-status"] == "REVALIDATED" && reply.body == first.body
        }
        #expect(revalidated, "no REVALIDATED within 6 s; saw \(Set(latestStatuses).sorted()); nginx log:\n\(nginx.accessLog.suffix(1500))")

        // 4. A partial rollout's answer to a client_id is `private`: never a HIT, however often asked.
        let (smallFile, _) = try randomFile("challenger.gguf", size: 4096)
        let challenger = try publish(smallFile, via: a, ["--rollout", "50"])
        let challengerID = try #require(challenger["id"] as? String)
        let rolloutPath = "/latest?sdk=2.3&client_id=rollout-client-7"
        // Both replicas must know the release first (else a stale public answer could be cached).
        let bothKnow = ModeldServer.eventually(within: 2) {
            [a, b].allSatisfy { ProxyReply.send(port: $0.port, path: rolloutPath).headers["cache-control"]?.hasPrefix("private") == true }
        }
        #expect(bothKnow, "the replicas did not answer `private` for \(challengerID) within 2 s")
        let rolloutReplies = (0..<4).map { _ in ProxyReply.send(port: nginx.port, path: rolloutPath) }
        for reply in rolloutReplies {
            #expect(reply.status == 200 && reply.headers["cache-control"]?.hasPrefix("private") == true,
                    "\(reply.status) \(reply.headers["cache-control"] ?? "no Cache-Control")")
            #expect(["MISS", "BYPASS"].contains(reply.headers["x-cache-status"] ?? "none"),
                    "partial-rollout answer came with X-Cache-Status \(reply.headers["x-cache-status"] ?? "none")")
        }
        let originFetches = nginx.accessLog.split(separator: "\n").filter { $0.contains("client_id=rollout-client-7") && $0.contains("upstream_status=200") }
        #expect(originFetches.count == 4, "every partial-rollout request reaches an origin:\n\(originFetches.joined(separator: "\n"))")

        // 5. Events through nginx: 40 unique batches, 10 of them resent; both replicas write.
        let posted = ProxyReply.parallel(40, within: 60) { i in Self.postEvents(front, client: "client-\(i)", batch: "batch-\(i)") }
        let resent = ProxyReply.parallel(10, within: 60) { i in Self.postEvents(front, client: "client-\(i)", batch: "batch-\(i)") }
        for reply in posted + resent {
            #expect(reply.status == 200, "POST /events: \(reply.status) \(reply.text) \(reply.error ?? "")")
        }
        #expect(posted.allSatisfy { ($0.json?["accepted"] as? Int) == 2 })
        // Whichever replica nginx chose, batch-0..2 now also reach each replica directly: at least
        // one copy is a cross-replica duplicate on disk, which only the read side drops.
        for i in 0..<3 {
            for replica in [a, b] {
                let reply = Self.postEvents(replica.port, client: "client-\(i)", batch: "batch-\(i)")
                #expect(reply.status == 200, "direct POST /events: \(reply.status) \(reply.text)")
            }
        }
        let onDisk = segmentLines(a.dataDir).filter { $0.contains(#""batch_id":"batch-0""#) }.count
        #expect(onDisk >= 4, "batch-0 is stored by both replicas (2 events each): \(onDisk) lines")
        let segments = segmentNames(a.dataDir), diskLines = segmentLines(a.dataDir).count
        #expect(segments.contains { $0.hasPrefix("a-") } && segments.contains { $0.hasPrefix("b-") },
                "each replica writes its own segments: \(segments)")
        let export = try exportedBatches(a.dataDir)
        #expect(export.events.count == 40, "40 batches exported: \(export.events.keys.sorted())")
        for i in 0..<40 {
            let events = export.events["client-\(i)/batch-\(i)"] ?? []
            #expect(events.count == 2 && Set(events.compactMap { $0["seq"] as? Int }) == [0, 1],
                    "batch-\(i) exported \(events.count) times over: \(events)")
        }

        // 6. Flush the access logs: nginx first (it holds keep-alive connections), then SIGTERM.
        nginx.stop()
        a.signal(SIGTERM)
        b.signal(SIGTERM)
        #expect(a.waitForExit(within: 20) == 0, "A did not stop cleanly:\n\(a.log)")
        #expect(b.waitForExit(within: 20) == 0, "B did not stop cleanly:\n\(b.log)")
        let logs = ["a": accessLog(a, instance: "a"), "b": accessLog(b, instance: "b")]
        var modelBytes: [String: Int] = [:]
        for (instance, lines) in logs {
            modelBytes[instance] = lines.filter { ($0["path"] as? String) == path }.reduce(0) { $0 + (($1["bytes"] as? Int) ?? 0) }
            #expect(modelBytes[instance]! <= size,
                    "replica \(instance) sent \(modelBytes[instance]!) body bytes of a \(size)-byte file for 50 downloads behind nginx")
        }
        #expect(modelBytes.values.reduce(0, +) >= size, "the access logs record the one origin fetch: \(modelBytes)")
        let origin304 = logs.values.joined().filter { ($0["path"] as? String) == "/latest" && ($0["status"] as? Int) == 304 }
        #expect(!origin304.isEmpty, "an origin answered nginx's revalidation with 304")
        print("""
            ReplicaNginxTests: propagation A→B \(String(format: "%.2f", propagation)) s; 50 downloads \(cacheStatuses); \
            origin body bytes for the file \(modelBytes) (size \(size)); /latest statuses \(Set(latestStatuses).sorted()); \
            origin 304s \(origin304.count); segments \(segments.sorted()); \
            event lines on disk \(diskLines), exported \(export.raw.split(separator: "\n").count)
            """)
    }

    // MARK: - Losing a replica under load

    @Test func sigkillOfOneReplicaMidLoad_losesNoAcknowledgedBatchAndFailsOver_SPEC5_SPEC9() throws {
        let (a, b) = try replicas()
        let nginx = try NginxProxy(upstreams: ["127.0.0.1:\(a.port)", "127.0.0.1:\(b.port)"])
        let demoPath = "/models/8d26dce3-a67c-4ab7-b68c-01a5318972ab.onnx"
        let front = nginx.port, victim = b.pid

        let acknowledged = ProxyReply.Collector<String>()
        let failures = ProxyReply.Collector<String>()
        let counters = ProxyReply.Collector<Int>()   // one entry per acknowledged batch
        let killedAt = ProxyReply.Collector<Int>()
        let workers = 6, perWorkerLimit = 400
        let finished = ProxyReply.parallel(workers, within: 60) { w -> Int in
            var done = 0
            for i in 0..<perWorkerLimit {
                let batch = "w\(w)-\(i)"
                // POST /events and POST /latest alternate: nginx retries both on the other replica.
                let updateCheck = i % 2 == 1
                let reply = Self.postEvents(front, client: "load-client-\(w)", batch: batch, updateCheck: updateCheck)
                if (200..<300).contains(reply.status), (reply.json?["events"] as? [String: Any] ?? reply.json)?["accepted"] != nil {
                    acknowledged.append(batch)
                    counters.append(1)
                } else {
                    failures.append("POST \(updateCheck ? "/latest" : "/events") \(batch): \(reply.status) \(reply.text) \(reply.error ?? "")")
                }
                // Uncached GETs fail over too (a model file is a HIT after the first request).
                let health = ProxyReply.send(port: front, path: i % 2 == 0 ? "/healthz" : demoPath)
                if health.status != 200 { failures.append("GET \(i % 2 == 0 ? "/healthz" : demoPath): \(health.status) \(health.error ?? "")") }
                done += 1
                // The kill happens once 60 batches are in; the load stops 120 batches after it.
                let total = counters.count
                if total >= 60, killedAt.count == 0, w == 0 {
                    killedAt.append(total)
                    kill(victim, SIGKILL)
                }
                if let k = killedAt.first, total >= k + 120 { break }
            }
            return done
        }
        #expect(finished.count == workers)
        #expect(b.waitForExit(within: 10) != nil, "B is dead")
        let killed = try #require(killedAt.first, "the load never reached the kill point")
        #expect(failures.all.isEmpty, "requests failed while B died:\n\(failures.all.prefix(20).joined(separator: "\n"))")
        #expect(acknowledged.count >= killed + 100, "load went on after the kill: \(acknowledged.count) acknowledged, kill at \(killed)")

        // Every acknowledged batch is in the export exactly once (read-side dedup), A's and B's alike.
        func audit(_ export: [String: [[String: Any]]]) -> (missing: [String], wrong: [String], byInstance: [String: Int]) {
            var missing: [String] = [], wrong: [String] = [], byInstance: [String: Int] = [:]
            for batch in acknowledged.all {
                let worker = batch.split(separator: "-").first!.dropFirst()
                let events = export["load-client-\(worker)/\(batch)"] ?? []
                if events.isEmpty { missing.append(batch); continue }
                if events.count != 2 || Set(events.compactMap { $0["seq"] as? Int }) != [0, 1] { wrong.append("\(batch): \(events.count) events") }
                byInstance[events[0]["instance"] as? String ?? "?", default: 0] += 1
            }
            return (missing, wrong, byInstance)
        }
        let (missing, wrong, byInstance) = audit(try exportedBatches(a.dataDir).events)
        #expect(missing.isEmpty, "acknowledged batches missing from the export: \(missing.prefix(20))")
        #expect(wrong.isEmpty, "batches exported more than once or partially: \(wrong.prefix(20))")
        #expect((byInstance["b"] ?? 0) > 0, "B acknowledged some batches before it died: \(byInstance)")
        let failedOver = nginx.accessLog.split(separator: "\n").filter { $0.contains(", 127.0.0.1:") }
        #expect(!failedOver.isEmpty, "nginx retried some request on the other replica")

        // B comes back on the same data/ (it repairs its own segments) and the export is unchanged.
        try b.restart()
        let again = audit(try exportedBatches(a.dataDir).events)
        #expect(again.missing.isEmpty && again.wrong.isEmpty, "after B's restart: missing \(again.missing.prefix(20)), wrong \(again.wrong.prefix(20))")
        print("ReplicaNginxTests: kill after \(killed) batches; \(acknowledged.count) acknowledged, by instance \(byInstance); \(failedOver.count) requests failed over: \(Set(failedOver.compactMap { $0.split(separator: "\"").dropFirst().first?.split(separator: " ").prefix(2).joined(separator: " ") }).sorted())")
    }

    // MARK: - One instance id, one process

    @Test func secondProcessWithARunningInstanceID_exits2_SPEC2() throws {
        let (a, b) = try replicas()
        var env = ["MODELD_INSTANCE_ID": "b", "MODELD_ADMIN_TOKEN": b.token]
        let result = try ChildProcess.run(TestBinaries.modeld, b.arguments, environment: env, directory: b.root, timeout: .seconds(20))
        #expect(result.status == 2, "second 'b': status \(result.status)\n\(result.stdout)\(result.stderr)")
        #expect((result.stdout + result.stderr).contains("already running"), "\(result.stdout)\(result.stderr)")
        // The running replicas are undisturbed, and a third id is welcome on the same directories.
        #expect(ProxyReply.send(port: a.port, path: "/healthz").status == 200)
        #expect(ProxyReply.send(port: b.port, path: "/healthz").status == 200)
        env["MODELD_INSTANCE_ID"] = "c"
        let c = try ModeldServer(environment: env, root: a.root)
        #expect(ProxyReply.send(port: c.port, path: "/healthz").status == 200)
    }
}

/// A minimal HTTP/1.1 client for these tests: one request per connection (`Connection: close`),
/// raw sockets, every read bounded by SO_RCVTIMEO. It never throws: a failure is a reply with
/// status 0 and `error` set, so that concurrent load can record it.
struct ProxyReply: Sendable {
    var status = 0
    var headers: [String: String] = [:]   // lower-cased names; the last value wins
    var body = Data()
    var error: String?

    var text: String { String(decoding: body, as: UTF8.self) }
    var json: [String: Any]? { try? JSONSerialization.jsonObject(with: body) as? [String: Any] }

    static func send(port: Int, method: String = "GET", path: String, headers: [String: String] = [:],
                     body: Data = Data(), timeout: Int = 10) -> ProxyReply {
        let client: RawClient
        do { client = try RawClient(port: port, timeoutSeconds: timeout) } catch { return ProxyReply(error: "port \(port): \(error)") }
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if method == "POST" || method == "PUT" || !body.isEmpty { head += "Content-Length: \(body.count)\r\n" }
        do { try client.send(Array((head + "\r\n").utf8) + Array(body)) } catch { return ProxyReply(error: "\(error)") }
        // A time-out ends the read too: parse() then reports a cut-short body.
        let received = Data(client.readToEnd())
        return parse(received, isHEAD: method == "HEAD")
    }

    private static func parse(_ data: Data, isHEAD: Bool) -> ProxyReply {
        guard let end = data.firstRange(of: Data("\r\n\r\n".utf8)) else {
            return ProxyReply(error: "no complete response head in \(data.count) bytes")
        }
        let lines = String(decoding: data[data.startIndex..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let statusLine = lines[0].split(separator: " ")
        var reply = ProxyReply()
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { return ProxyReply(error: "bad status line \(lines[0])") }
        reply.status = status
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            reply.headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var rest = Data(data[end.upperBound...])
        if isHEAD || status == 204 || status == 304 || status < 200 { return reply }
        if reply.headers["transfer-encoding"]?.lowercased() == "chunked" {
            var decoded = Data()
            while let lineEnd = rest.firstRange(of: Data("\r\n".utf8)),
                  let length = Int(String(decoding: rest[rest.startIndex..<lineEnd.lowerBound], as: UTF8.self)
                      .split(separator: ";")[0].trimmingCharacters(in: .whitespaces), radix: 16) {
                if length == 0 { break }
                let start = lineEnd.upperBound
                guard rest.count >= rest.distance(from: rest.startIndex, to: start) + length else {
                    reply.error = "chunked body cut short"; break
                }
                decoded.append(rest[start..<(start + length)])
                rest = Data(rest[(start + length)...].dropFirst(2))
            }
            reply.body = decoded
        } else if let length = reply.headers["content-length"].flatMap(Int.init) {
            reply.body = rest.prefix(length)
            if rest.count < length { reply.error = "body cut short at \(rest.count) of \(length)" }
        } else {
            reply.body = rest
        }
        return reply
    }

    /// Runs `count` calls of `body` on their own threads (GCD would cap blocking work at the
    /// core count), released together once all have started; waits at most `seconds`.
    /// Results are in index order; a call still running at the deadline is missing.
    static func parallel<T: Sendable>(_ count: Int, within seconds: Double, _ body: @escaping @Sendable (Int) -> T) -> [T] {
        let results = Collector<(Int, T)>()
        let start = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
        for i in 0..<count {
            let thread = Thread {
                start.wait()
                results.append((i, body(i)))
                done.signal()
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
        for _ in 0..<count { start.signal() }
        let deadline = DispatchTime.now() + seconds
        for _ in 0..<count where done.wait(timeout: deadline) == .timedOut { break }
        return results.all.sorted { $0.0 < $1.0 }.map(\.1)
    }

    /// A lock-protected list shared between threads.
    final class Collector<T>: @unchecked Sendable {
        private let lock = NSLock()
        private var items: [T] = []
        func append(_ item: T) { lock.withLock { items.append(item) } }
        var all: [T] { lock.withLock { items } }
        var count: Int { lock.withLock { items.count } }
        var first: T? { lock.withLock { items.first } }
    }
}

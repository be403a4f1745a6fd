import CivilTime
import Foundation
@testable import ModeldClient
import Synchronization
import Testing

/// The transport contract (SPEC §13.1), one suite run for both transports against the real
/// modeld through the fault proxy: libcurl (the Linux default) and URLSession through
/// FoundationNetworking (the Apple default; compiled and run here so it cannot rot). Ranges,
/// resume with If-Range, a 200 to a range restarting, abort at size + 1, 304, identity encoding
/// for model bytes, Retry-After, cancellation; and redirects, a sink's error, the idle timeout.
@Suite(.serialized) final class ClientTransportTests {
    static let kinds: [TransportKind] = [.libcurl, .urlSession]
    let fx: ClientFixture
    init() throws { fx = try ClientFixture() }

    func transport(_ kind: TransportKind, idleTimeout: Int = 60) throws -> any HTTPTransport {
        try makeHTTPTransport(kind, idleTimeout: idleTimeout)
    }

    /// Publishes `size` random bytes; returns the verified release and the file's bytes.
    func published(size: Int, through transport: any HTTPTransport) async throws -> (release: ReleaseDocument, bytes: Data) {
        let published = try fx.publish(size: size)
        let answer = try await transport.send(HTTPRequest(url: URL(string: fx.proxy.url + "/latest?sdk=2.3")!))
        let release = try JSONDecoder().decode(ReleaseDocument.self, from: Data(answer.body))
        try #require(release.id == published.id)
        return (release, try Data(contentsOf: published.file))
    }

    func partialDirectory() throws -> URL {
        let directory = fx.scratch.appendingPathComponent("partial-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    @Test(arguments: kinds) func aRange_isAnsweredWith206_andExactlyThoseBytes(kind: TransportKind) async throws {
        let transport = try transport(kind)
        let file = try await published(size: 100_000, through: transport)
        var request = HTTPRequest(url: URL(string: file.release.url)!)
        request.headers["Range"] = "bytes=1000-1999"
        request.headers["Accept-Encoding"] = "identity"
        let answer = try await transport.send(request)
        #expect(answer.status == 206)
        #expect(answer.header("Content-Range") == "bytes 1000-1999/100000")
        #expect(Data(answer.body) == file.bytes[1000..<2000])
    }

    @Test(arguments: kinds) func aCutDownload_resumesWithRangeAndIfRange_fetchingOnlyTheRest(kind: TransportKind) async throws {
        let transport = try transport(kind)
        let size = 6 << 20
        let file = try await published(size: size, through: transport)
        let downloader = Downloader(transport: transport, directory: try partialDirectory())
        // Within the first request, whether the transport asks for the file whole or in windows.
        fx.proxy.add(.init(pathContains: "/models/", fault: .cutAfter(1 << 20), times: 1))
        await #expect(throws: ModeldClientError.self) { _ = try await downloader.fetch(file.release) }
        let cutRequests = fx.modelRequests(file.release.id).count

        let url = try await downloader.fetch(file.release).file
        #expect(try Data(contentsOf: url) == file.bytes)
        let second = try #require(fx.modelRequests(file.release.id).dropFirst(cutRequests).first)
        let resumedAt = Int(second.headers["range"]?.dropFirst("bytes=".count).prefix { $0 != "-" } ?? "") ?? 0
        #expect((1...1 << 20).contains(resumedAt), "Range: \(second.headers["range"] ?? "none")")
        #expect(second.headers["if-range"] == "\"\(file.release.sha256)\"")
        // Only the rest crossed the network after the cut (in one answer or in windows).
        let served = try fx.accessLog(atLeast: fx.modelRequests(file.release.id).count, where: ClientFixture.isModelFile)
        let afterCut = served.dropFirst(cutRequests)
        #expect(afterCut.allSatisfy { $0["status"] as? Int == 206 })
        #expect(afterCut.compactMap { $0["bytes"] as? Int }.reduce(0, +) == size - resumedAt)
    }

    @Test(arguments: kinds) func aFullAnswerToARange_restartsTheFileFromZero(kind: TransportKind) async throws {
        let transport = try transport(kind)
        let file = try await published(size: 3 << 20, through: transport)
        let downloader = Downloader(transport: transport, directory: try partialDirectory())
        fx.proxy.add(.init(pathContains: "/models/", fault: .cutAfter(1 << 20), times: 1))
        await #expect(throws: ModeldClientError.self) { _ = try await downloader.fetch(file.release) }
        fx.proxy.add(.init(pathContains: "/models/", fault: .ignoreRange, times: 1))
        let url = try await downloader.fetch(file.release).file
        #expect(try Data(contentsOf: url) == file.bytes)
        let served = try fx.accessLog(atLeast: 2, where: ClientFixture.isModelFile).last
        #expect(served?["status"] as? Int == 200 && served?["bytes"] as? Int == 3 << 20)
    }

    @Test(arguments: kinds) func aServerThatSendsMoreThanTheSize_isCutAtSizePlusOne(kind: TransportKind) async throws {
        let transport = try transport(kind)
        let file = try await published(size: 2 << 20, through: transport)
        let directory = try partialDirectory()
        fx.proxy.add(.init(pathContains: "/models/", fault: .extraBytes(3 << 20), times: 1))
        await #expect {
            _ = try await Downloader(transport: transport, directory: directory).fetch(file.release)
        } throws: { error in
            guard case ModeldClientError.verification(let message) = error else { return false }
            return message.contains("more than the \(2 << 20) bytes")
        }
        // Nothing of the oversized answer is kept.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    @Test(arguments: kinds) func aRevalidatedAnswer_is304(kind: TransportKind) async throws {
        let transport = try transport(kind)
        _ = try await published(size: 1000, through: transport)
        let url = URL(string: fx.proxy.url + "/latest?sdk=2.3")!
        let first = try await transport.send(HTTPRequest(url: url))
        let etag = try #require(first.header("ETag"))
        var request = HTTPRequest(url: url)
        request.headers["If-None-Match"] = etag
        let second = try await transport.send(request)
        #expect(second.status == 304 && second.body.isEmpty)
        #expect(second.header("ETag") == etag)
    }

    @Test(arguments: kinds) func modelBytes_areAskedForAndReceivedInIdentityEncoding(kind: TransportKind) async throws {
        let transport = try transport(kind)
        let file = try await published(size: 200_000, through: transport)
        let url = try await Downloader(transport: transport, directory: try partialDirectory()).fetch(file.release).file
        #expect(try Data(contentsOf: url) == file.bytes)
        let request = try #require(fx.modelRequests(file.release.id).last)
        #expect(request.headers["accept-encoding"] == "identity")
        let head = try #require(fx.proxy.responses.last { $0.target.hasPrefix("/models/") }?.head.lowercased())
        #expect(!head.contains("content-encoding"), "\(head)")
    }

    @Test(arguments: kinds) func retryAfter_reachesTheClient_andDefersTheNextCheck(kind: TransportKind) async throws {
        let transport = try transport(kind)
        _ = try fx.publish(size: 1000)
        fx.proxy.add(.init(pathContains: "/latest", fault: .serviceUnavailable(retryAfter: "120"), times: 2))
        let answer = try await transport.send(HTTPRequest(url: URL(string: fx.proxy.url + "/latest?sdk=2.3")!))
        #expect(answer.status == 503 && answer.header("Retry-After") == "120")

        var configuration = ModeldConfiguration(source: .server(URL(string: fx.proxy.url)!), sdkVersion: "2.3",
                                                cacheDirectory: fx.cache, backoffBase: 0.01)
        configuration.allowUnsigned = true
        configuration.transport = kind
        let client = try ModelChannel(configuration)
        await #expect(throws: ModeldClientError.self) { try await client.check() }
        #expect(await client.nextCheckDate().timeIntervalSinceNow > 110)
        await #expect { try await client.check() } throws: { error in
            guard case ModeldClientError.deferred = error else { return false }
            return true
        }
        #expect(fx.latestRequests.count == 2)
    }

    /// RFC 9110 §5.6.7: a recipient reads an HTTP-date in any of its three forms, so a
    /// Retry-After in each defers the next check until then (issue 26: the client read only
    /// IMF-fixdate).
    @Test(arguments: ["IMF-fixdate", "RFC 850", "asctime"])
    func retryAfter_asAnHTTPDateInAnyForm_defersTheNextCheck(form: String) async throws {
        _ = try fx.publish(size: 1000)
        // "Sun, 06 Nov 1994 08:49:37 GMT", five minutes ahead, respelt in the form under test.
        let imf = HTTPDate.format(epochSeconds: Int64(Date().timeIntervalSince1970) + 300).split(separator: " ").map(String.init)
        let weekday = String(imf[0].dropLast()), day = imf[1], month = imf[2], year = imf[3], time = imf[4]
        let weekdays = ["Mon": "Monday", "Tue": "Tuesday", "Wed": "Wednesday", "Thu": "Thursday", "Fri": "Friday",
                        "Sat": "Saturday", "Sun": "Sunday"]
        let text = switch form {
        case "RFC 850": "\(weekdays[weekday]!), \(day)-\(month)-\(year.suffix(2)) \(time) GMT"
        case "asctime": "\(weekday) \(month) \(day.hasPrefix("0") ? " " + day.dropFirst() : day) \(time) \(year)"
        default: imf.joined(separator: " ")
        }
        fx.proxy.add(.init(pathContains: "/latest", fault: .serviceUnavailable(retryAfter: text), times: 1))
        let client = try ModelChannel(ModeldConfiguration(source: .server(URL(string: fx.proxy.url)!), sdkVersion: "2.3",
                                                          cacheDirectory: fx.cache, backoffBase: 0.01).allowingUnsigned())
        await #expect(throws: ModeldClientError.self) { try await client.check() }
        let wait = await client.nextCheckDate().timeIntervalSinceNow
        #expect(wait > 240 && wait <= 300, "Retry-After: \(text) waits \(wait) s")
    }

    @Test(arguments: kinds) func cancellingTheTask_abortsAStalledTransfer_withinOneSecond(kind: TransportKind) async throws {
        let transport = try transport(kind)
        let file = try await published(size: 4 << 20, through: transport)
        fx.proxy.add(.init(pathContains: "/models/", fault: .throttle(bytesPerSecond: 16 << 10), times: 1))  // ~4 min
        let sink = RecordingSink()
        let task = Task { try await transport.stream(HTTPRequest(url: URL(string: file.release.url)!), into: sink) }
        try #require(await Self.eventually(within: 10) { sink.byteCount.load(ordering: .relaxed) > 0 }, "no body byte within 10 s")
        let cancelledAt = Date()
        task.cancel()
        let result = await task.result
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(Date().timeIntervalSince(cancelledAt) < 1)
    }

    @Test(arguments: kinds) func aRedirect_isFollowed_andTheSinkSeesOnlyTheFinalResponse(kind: TransportKind) async throws {
        let transport = try transport(kind)
        let file = try await published(size: 3 << 20, through: transport)
        fx.proxy.add(.init(pathContains: "/moved", fault: .respond(status: "302 Found", headers: ["Location: \(file.release.url)"],
                                                                      body: Array("moved".utf8)), times: 1))
        let sink = RecordingSink()
        try await transport.stream(HTTPRequest(url: URL(string: fx.proxy.url + "/moved")!), into: sink)
        #expect(sink.heads.withLock { $0 } == [200])
        #expect(try sink.digest() == file.release.sha256)
    }

    @Test(arguments: kinds) func aSinkThatThrows_endsTheTransfer_withItsOwnError(kind: TransportKind) async throws {
        let transport = try transport(kind)
        let file = try await published(size: 8 << 20, through: transport)
        let sink = RecordingSink(failAfter: 1 << 20)
        await #expect(throws: RecordingSink.Enough.self) { try await transport.stream(HTTPRequest(url: URL(string: file.release.url)!), into: sink) }
        #expect(sink.byteCount.load(ordering: .relaxed) < 8 << 20)
    }

    @Test(arguments: kinds) func aServerThatGoesSilent_failsTheRequestAfterTheIdleTimeout(kind: TransportKind) async throws {
        fx.proxy.add(.init(pathContains: "/latest", fault: .stall, times: 1))
        let transport = try transport(kind, idleTimeout: 2)
        let start = Date()
        await #expect(throws: ModeldClientError.self) {
            _ = try await transport.send(HTTPRequest(url: URL(string: self.fx.proxy.url + "/latest?sdk=2.3")!))
        }
        let elapsed = Date().timeIntervalSince(start)
        #expect(elapsed >= 1.5 && elapsed < 10, "failed after \(elapsed) s")
        #expect(fx.latestRequests.count == 1)
    }

    static func eventually(within seconds: Double, _ condition: () -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return condition()
    }
}

/// Records the heads and hashes the body; optionally throws once `failAfter` bytes arrived.
private final class RecordingSink: ResponseSink, Sendable {
    struct Enough: Error {}
    let heads = Mutex<[Int]>([])
    let byteCount = Atomic<Int>(0)
    private let body = Mutex<[UInt8]>([])
    private let failAfter: Int?

    init(failAfter: Int? = nil) { self.failAfter = failAfter }

    func receive(_ head: ResponseHead) throws { heads.withLock { $0.append(head.status) } }

    func receive(_ bytes: UnsafeRawBufferPointer) throws {
        let total = byteCount.add(bytes.count, ordering: .relaxed).newValue
        if let failAfter, total >= failAfter { throw Enough() }
        body.withLock { $0.append(contentsOf: bytes) }
    }

    func digest() throws -> String { try SHA256Sum.of(Data(body.withLock { $0 })) }
}

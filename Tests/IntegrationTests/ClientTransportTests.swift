import Foundation
@testable import ModeldClient
import Synchronization
import Testing

/// The platform's `HTTPTransport` (libcurl on Linux) against the real modeld through the fault
/// proxy: what the library builds on — streaming into a sink, redirects, cancellation, the idle
/// timeout, a sink's error ending the transfer.
@Suite(.serialized) final class ClientTransportTests {
    let fx: ClientFixture
    let transport = makeHTTPTransport()
    init() throws { fx = try ClientFixture() }

    /// Publishes `size` bytes and returns the file's URL from the `/latest` answer.
    func publishedFile(size: Int) async throws -> (url: URL, sha256: String) {
        let published = try fx.publish(size: size)
        let answer = try await transport.send(HTTPRequest(url: URL(string: fx.proxy.url + "/latest?sdk=2.3")!))
        let release = try #require(try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any])
        return (URL(string: try #require(release["url"] as? String))!, published.sha256)
    }

    @Test func aRedirect_isFollowed_andTheSinkSeesOnlyTheFinalResponse() async throws {
        let file = try await publishedFile(size: 3 << 20)
        fx.proxy.add(.init(pathContains: "/moved", fault: .respond(status: "302 Found", headers: ["Location: \(file.url.absoluteString)"],
                                                                      body: Array("moved".utf8)), times: 1))
        let sink = RecordingSink()
        try await transport.stream(HTTPRequest(url: URL(string: fx.proxy.url + "/moved")!), into: sink)
        #expect(sink.heads.withLock { $0 } == [200])
        #expect(try sink.digest() == file.sha256)
    }

    @Test func cancellingTheTask_abortsAStalledTransfer_withinAboutASecond() async throws {
        let file = try await publishedFile(size: 4 << 20)
        fx.proxy.add(.init(pathContains: "/models/", fault: .throttle(bytesPerSecond: 16 << 10), times: 1))  // ~1 min
        let sink = RecordingSink()
        let transport = self.transport
        let task = Task { try await transport.stream(HTTPRequest(url: file.url), into: sink) }
        try #require(await Self.eventually(within: 10) { sink.byteCount.load(ordering: .relaxed) > 0 }, "no body byte within 10 s")
        let cancelledAt = Date()
        task.cancel()
        let result = await task.result
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(Date().timeIntervalSince(cancelledAt) < 3)
    }

    @Test func aSinkThatThrows_endsTheTransfer_withItsOwnError() async throws {
        let file = try await publishedFile(size: 8 << 20)
        let sink = RecordingSink(failAfter: 1 << 20)
        await #expect(throws: RecordingSink.Enough.self) { try await self.transport.stream(HTTPRequest(url: file.url), into: sink) }
        #expect(sink.byteCount.load(ordering: .relaxed) < 2 << 20)
    }

    @Test func aServerThatGoesSilent_failsTheRequestAfterTheIdleTimeout() async throws {
        fx.proxy.add(.init(pathContains: "/latest", fault: .stall, times: 1))
        let transport = makeHTTPTransport(idleTimeout: 2)
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

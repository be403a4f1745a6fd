import Glibc
import HTTPServer
import HTTPTestSupport
import HTTPWire
import Synchronization
import Testing

/// Every server suite runs one test at a time: the descriptor-count test must not see another
/// test's sockets come and go.
@Suite(.serialized) enum ServerSuites {}

/// A handler made of one closure, so each test states its own routes.
struct ClosureHandler: HTTPHandler {
    let route: @Sendable (RequestHead, Exchange) -> HeadDecision
    func handle(_ head: RequestHead, _ exchange: Exchange) -> HeadDecision { route(head, exchange) }
}

/// Keeps every summary for inspection.
final class RecordingObserver: ExchangeObserver {
    private let summaries = Mutex<[ExchangeSummary]>([])
    func exchangeFinished(_ summary: ExchangeSummary) { summaries.withLock { $0.append(summary) } }
    var all: [ExchangeSummary] { summaries.withLock { $0 } }
}

/// Polls `condition` every 10 ms until it holds or `seconds` pass; returns whether it held.
func eventually(within seconds: Double = 10, _ condition: () -> Bool) -> Bool {
    var start = timespec()
    clock_gettime(CLOCK_MONOTONIC, &start)
    while true {
        if condition() { return true }
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        if Double(now.tv_sec - start.tv_sec) + Double(now.tv_nsec - start.tv_nsec) / 1e9 > seconds { return false }
        var pause = timespec(tv_sec: 0, tv_nsec: 10_000_000)
        nanosleep(&pause, nil)
    }
}

/// A server on 127.0.0.1 with an ephemeral port, stopped at the end of `body`.
func withServer<T>(_ config: ServerConfiguration = ServerConfiguration(), observer: RecordingObserver? = nil,
                   route: @escaping @Sendable (RequestHead, Exchange) -> HeadDecision,
                   _ body: (HTTPServer, Int) throws -> T) throws -> T {
    var config = config
    config.host = "127.0.0.1"
    config.port = 0
    if config.workers == 0 { config.workers = 2 }
    let server = HTTPServer(configuration: config, handler: ClosureHandler(route: route), observer: observer)
    let port = try server.start()
    defer { server.stop(after: 0) }
    return try body(server, port)
}

/// The usual small answer.
func ok(_ text: String = "hello") -> HeadDecision {
    .respond(Response(status: 200, headers: ["Content-Type": "text/plain"], body: Array(text.utf8)))
}

/// Open descriptors of this process.
func openFDCount() -> Int {
    guard let dir = opendir("/proc/self/fd") else { return -1 }
    defer { closedir(dir) }
    var n = 0
    while readdir(dir) != nil { n += 1 }
    return n - 3  // ".", "..", and the directory itself
}

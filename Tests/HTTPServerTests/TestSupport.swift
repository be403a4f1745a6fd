import Glibc
import HTTPServer
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

struct ParsedResponse {
    var status: Int
    var headers: HTTPFields
    var body: [UInt8]
    var text: String { String(decoding: body, as: UTF8.self) }
}

/// A blocking loopback client speaking raw bytes; every read is bounded by SO_RCVTIMEO.
final class RawClient {
    let fd: Int32
    private var buffer: [UInt8] = []

    init(port: Int, timeoutSeconds: Int = 10) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var tv = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        if rc != 0 { close(fd); throw ClientError("connect failed: errno \(errno)") }
    }

    deinit { close(fd) }

    struct ClientError: Error, CustomStringConvertible {
        let description: String
        init(_ d: String) { description = d }
    }

    func send(_ text: String) throws { try send(Array(text.utf8)) }

    func send(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { throw ClientError("send failed: errno \(errno)") }
            sent += n
        }
    }

    /// Reads more into the buffer; false on EOF or error (including the timeout).
    @discardableResult
    func fill(max: Int = 65536) -> Bool {
        var chunk = [UInt8](repeating: 0, count: max)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, max, 0) }
        if n <= 0 { return false }
        buffer += chunk[0..<n]
        return true
    }

    /// True once the server closed the connection (EOF or reset) with nothing more to read.
    func isClosedByPeer() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, $0.count, 0) }
            if n > 0 { continue }
            return n == 0 || errno == ECONNRESET
        }
    }

    /// Everything until the server closes.
    func readToEnd() -> [UInt8] {
        while fill() {}
        defer { buffer = [] }
        return buffer
    }

    func readHead() throws -> (status: Int, headers: HTTPFields) {
        while true {
            if let end = findHeadEnd() {
                let text = String(decoding: buffer[0..<end], as: UTF8.self)
                buffer.removeFirst(end + 4)
                var lines = text.split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init)
                let statusLine = lines.removeFirst().split(separator: " ")
                guard statusLine.count >= 2, let status = Int(statusLine[1]) else { throw ClientError("bad status line \(text)") }
                var headers = HTTPFields()
                for line in lines {
                    let colon = line.firstIndex(of: ":")!
                    headers.append(String(line[..<colon]), String(line[line.index(after: colon)...].drop { $0 == " " }))
                }
                return (status, headers)
            }
            guard fill() else { throw ClientError("connection ended before a response head; have \(String(decoding: buffer, as: UTF8.self).debugDescription)") }
        }
    }

    func readResponse(head isHEAD: Bool = false) throws -> ParsedResponse {
        let (status, headers) = try readHead()
        if isHEAD || status < 200 || status == 204 || status == 304 { return ParsedResponse(status: status, headers: headers, body: []) }
        guard let length = headers["Content-Length"].flatMap({ Int($0) }) else {
            return ParsedResponse(status: status, headers: headers, body: readToEnd())
        }
        while buffer.count < length {
            guard fill() else { throw ClientError("body cut short at \(buffer.count) of \(length)") }
        }
        let body = Array(buffer[0..<length])
        buffer.removeFirst(length)
        return ParsedResponse(status: status, headers: headers, body: body)
    }

    /// Reads and discards `count` body bytes, handing each piece with its offset to `inspect`.
    func consume(_ count: Int64, inspect: (Int64, ArraySlice<UInt8>) -> Void) throws {
        var offset: Int64 = 0
        if !buffer.isEmpty {
            let take = Int(min(Int64(buffer.count), count))
            inspect(0, buffer[0..<take])
            buffer.removeFirst(take)
            offset = Int64(take)
        }
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        while offset < count {
            let want = Int(min(Int64(chunk.count), count - offset))
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, want, 0) }
            if n <= 0 { throw ClientError("body cut short at \(offset) of \(count)") }
            inspect(offset, chunk[0..<n])
            offset += Int64(n)
        }
    }

    private func findHeadEnd() -> Int? {
        guard buffer.count >= 4 else { return nil }
        for i in 0...(buffer.count - 4) where buffer[i] == 13 && buffer[i + 1] == 10 && buffer[i + 2] == 13 && buffer[i + 3] == 10 {
            return i
        }
        return nil
    }
}

/// Open descriptors of this process.
func openFDCount() -> Int {
    guard let dir = opendir("/proc/self/fd") else { return -1 }
    defer { closedir(dir) }
    var n = 0
    while readdir(dir) != nil { n += 1 }
    return n - 3  // ".", "..", and the directory itself
}

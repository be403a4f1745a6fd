import ChildProcesses
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A fault-injecting HTTP/1.1 proxy on 127.0.0.1 for client tests (SPEC §13): one request per
/// connection (it adds `Connection: close` both ways), relayed to `upstream` unless a rule
/// says otherwise. Rules match a substring of the request target and apply to the next `times`
/// matching requests: answer 503 + Retry-After, cut the body after N bytes, flip one body byte,
/// append extra body bytes (Content-Length raised to match), throttle the body, drop the whole
/// answer after the upstream produced it, strip the request's Range, go silent, or go silent
/// mid-body.
final class FaultProxy: @unchecked Sendable {
    enum Fault: Sendable {
        /// Answers itself, never asking upstream (`headers` without Content-Length/Connection).
        case respond(status: String, headers: [String], body: [UInt8])
        case cutAfter(Int)
        case flipByte(at: Int)
        case extraBytes(Int)
        case throttle(bytesPerSecond: Int)
        /// Relays the request, then closes without a byte of the answer (a response lost after commit).
        case dropResponse
        /// Relays the request without its `Range` and `If-Range` (a cache that ignores ranges).
        case ignoreRange
        /// Reads the request and answers nothing until the client gives up (at most 30 s).
        case stall
        /// Relays the head and the first N body bytes, then sends nothing more until the client
        /// gives up (at most 30 s): a network that stalls mid-download.
        case stallAfter(Int)

        static func serviceUnavailable(retryAfter: String) -> Fault {
            .respond(status: "503 Service Unavailable", headers: ["Content-Type: application/json", "Retry-After: \(retryAfter)"],
                     body: Array(#"{"error":"unavailable","message":"injected by the test proxy"}"#.utf8))
        }
    }

    struct Rule: Sendable {
        var pathContains: String
        var fault: Fault
        var times: Int
        /// Targets ending so are left alone: by default a model file's rule spares its `.chunks`
        /// list (SPEC §14), which clients fetch first.
        var unlessSuffix: String? = ".chunks"
    }

    /// One request as it reached the proxy.
    struct Seen: Sendable {
        let method: String
        let target: String
        let headers: [String: String]  // lowercased names
        let at: Date
    }

    let port: Int
    var upstreamPort: Int {
        get { state.withLock { $0.upstream } }
        set { state.withLock { $0.upstream = newValue } }
    }

    private struct State {
        var upstream = 0
        var rules: [Rule] = []
        var seen: [Seen] = []
        /// Each relayed answer's head (status line and fields), with the request target.
        var responses: [(target: String, head: String)] = []
        /// Body bytes sent to clients, by request target.
        var relayed: [String: Int] = [:]
        /// When a `stallAfter` rule sent its last byte.
        var stalledAt: Date?
    }
    private let state = Mutex(State())
    private let listener: Int32

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var addr = Self.loopback(port: 0)
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 128) == 0 else { throw ChildProcessError.timedOut("proxy bind: \(errno)") }
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        listener = fd
        port = Int(UInt16(bigEndian: addr.sin_port))
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    /// Ends the accept loop, which holds the proxy alive and closes the listener itself on its
    /// way out (closing it here could hand its descriptor number to the next test's socket
    /// while the loop still accepts on it).
    func stop() { shutdown(listener, Int32(SHUT_RDWR)) }

    var url: String { "http://127.0.0.1:\(port)" }

    func add(_ rule: Rule) { state.withLock { $0.rules.append(rule) } }
    /// Body bytes relayed to clients for `target` so far (every request for it).
    func relayedBytes(_ target: String) -> Int { state.withLock { $0.relayed[target] ?? 0 } }

    func clearRules() { state.withLock { $0.rules.removeAll() } }
    var seen: [Seen] { state.withLock { $0.seen } }
    /// When the last `stallAfter` stall began (its last byte sent).
    var stalledAt: Date? { state.withLock { $0.stalledAt } }
    var responses: [(target: String, head: String)] { state.withLock { $0.responses } }

    private func acceptLoop() {
        defer { close(listener) }
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 { if errno == EINTR { continue } else { return } }
            let thread = Thread { [self] in serve(client) }
            thread.start()
        }
    }

    private func serve(_ client: Int32) {
        defer { close(client) }
        var buffer: [UInt8] = []
        guard let headEnd = Self.readUntilHeadEnd(client, &buffer) else { return }
        let head = String(decoding: buffer[..<headEnd], as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        let requestLine = lines.removeFirst().split(separator: " ").map(String.init)
        guard requestLine.count == 3 else { return }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let length = Int(headers["content-length"] ?? "0") ?? 0
        while buffer.count < headEnd + length, Self.receive(client, &buffer) > 0 {}
        let body = Array(buffer[headEnd..<min(buffer.count, headEnd + length)])

        let fault: Fault? = state.withLock { s in
            s.seen.append(Seen(method: requestLine[0], target: requestLine[1], headers: headers, at: Date()))
            guard let i = s.rules.firstIndex(where: { requestLine[1].contains($0.pathContains) && $0.times > 0
                && !($0.unlessSuffix.map { requestLine[1].hasSuffix($0) } ?? false) }) else { return nil }
            s.rules[i].times -= 1
            return s.rules[i].fault
        }
        if case .stall = fault {
            _ = Self.receive(client, &buffer)  // returns when the client closes, or after SO_RCVTIMEO
            return
        }
        if case .respond(let status, let extra, let body) = fault {
            let head = (["HTTP/1.1 \(status)"] + extra + ["Content-Length: \(body.count)", "Connection: close"]).joined(separator: "\r\n")
            Self.send(client, Array((head + "\r\n\r\n").utf8) + body)
            return
        }
        relay(requestLine: requestLine, lines: lines, body: body, to: client, fault: fault)
    }

    private func relay(requestLine: [String], lines: [String], body: [UInt8], to client: Int32, fault: Fault?) {
        let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(upstream) }
        var addr = Self.loopback(port: upstreamPort)
        let connected = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { return }
        var dropped = ["connection:"]
        if case .ignoreRange = fault { dropped += ["range:", "if-range:"] }
        let forwarded = lines.filter { line in !dropped.contains { line.lowercased().hasPrefix($0) } } + ["Connection: close"]
        Self.send(upstream, Array((requestLine.joined(separator: " ") + "\r\n" + forwarded.joined(separator: "\r\n") + "\r\n\r\n").utf8) + body)

        var buffer: [UInt8] = []
        guard let headEnd = Self.readUntilHeadEnd(upstream, &buffer) else { return }
        let responseHead = String(decoding: buffer[..<headEnd], as: UTF8.self)
        state.withLock { $0.responses.append((requestLine[1], responseHead)) }
        if case .dropResponse = fault { return }
        var head = String(decoding: buffer[..<(headEnd - 4)], as: UTF8.self).components(separatedBy: "\r\n")
            .filter { !$0.lowercased().hasPrefix("connection:") }
        if case .extraBytes(let extra) = fault, let i = head.firstIndex(where: { $0.lowercased().hasPrefix("content-length:") }) {
            let length = Int(head[i].split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) ?? 0
            head[i] = "Content-Length: \(length + extra)"
        }
        Self.send(client, Array((head.joined(separator: "\r\n") + "\r\nConnection: close\r\n\r\n").utf8))

        var pending = Array(buffer[headEnd...])
        var sent = 0
        while true {
            if pending.isEmpty {
                var chunk: [UInt8] = []
                guard Self.receive(upstream, &chunk, max: 64 << 10) > 0 else { break }
                pending = chunk
            }
            switch fault {
            case .cutAfter(let limit):
                let allowed = max(0, limit - sent)
                if pending.count >= allowed {
                    Self.send(client, Array(pending.prefix(allowed)))
                    return
                }
            case .stallAfter(let limit):
                let allowed = max(0, limit - sent)
                if pending.count >= allowed {
                    guard Self.send(client, Array(pending.prefix(allowed))) else { return }
                    state.withLock {
                        $0.relayed[requestLine[1], default: 0] += allowed
                        $0.stalledAt = Date()
                    }
                    var scratch: [UInt8] = []
                    _ = Self.receive(client, &scratch)  // returns when the client closes, or after SO_RCVTIMEO
                    return
                }
            case .flipByte(let at) where (sent..<sent + pending.count).contains(at):
                pending[at - sent] ^= 0x01
            case .throttle(let rate):
                usleep(UInt32(min(1_000_000, Double(pending.count) / Double(rate) * 1e6)))
            default: break
            }
            guard Self.send(client, pending) else { return }
            state.withLock { $0.relayed[requestLine[1], default: 0] += pending.count }
            sent += pending.count
            pending = []
        }
        if case .extraBytes(let extra) = fault { Self.send(client, [UInt8](repeating: 0x41, count: extra)) }
    }

    // MARK: sockets

    private static func loopback(port: Int) -> sockaddr_in {
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        return addr
    }

    private static func readUntilHeadEnd(_ fd: Int32, _ buffer: inout [UInt8]) -> Int? {
        var tv = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        while true {
            if buffer.count >= 4 {
                for i in 0...(buffer.count - 4) where buffer[i] == 13 && buffer[i + 1] == 10 && buffer[i + 2] == 13 && buffer[i + 3] == 10 {
                    return i + 4
                }
            }
            guard buffer.count < 1 << 20, receive(fd, &buffer) > 0 else { return nil }
        }
    }

    @discardableResult
    private static func receive(_ fd: Int32, _ buffer: inout [UInt8], max: Int = 65_536) -> Int {
        var chunk = [UInt8](repeating: 0, count: max)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n > 0 { buffer += chunk[..<n] }
        return n
    }

    @discardableResult
    private static func send(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { return false }
            offset += n
        }
        return true
    }
}

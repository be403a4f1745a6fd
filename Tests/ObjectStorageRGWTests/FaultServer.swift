import Foundation
import Glibc

/// A loopback HTTP server that answers each connection with the next scripted response (or
/// closes it unanswered), to drive the client's retry paths. It records every request head.
final class FaultServer: @unchecked Sendable {
    enum Reply {
        case respond(status: Int, headers: [String] = [], body: String = "")
        /// Close the connection after reading the request, sending nothing.
        case hangUp
    }

    let port: UInt16
    private let listener: Int32
    private let lock = NSLock()
    private var replies: [Reply]
    private var heads: [String] = []

    /// Request heads received so far (request line and header fields).
    var requests: [String] { lock.withLock { heads } }

    init(_ replies: [Reply]) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in(sin_family: sa_family_t(AF_INET), sin_port: 0, sin_addr: in_addr(s_addr: inet_addr("127.0.0.1")), sin_zero: (0, 0, 0, 0, 0, 0, 0, 0))
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && listen(fd, 16) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard fd >= 0, bound else { throw POSIXError(.EADDRNOTAVAIL) }
        listener = fd
        port = UInt16(bigEndian: address.sin_port)
        self.replies = replies
        let serving = Thread { [self] in serve() }
        serving.start()
    }

    /// Stops accepting: shutting the listener down wakes the blocked accept.
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private func serve() {
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            let head = readRequest(connection)
            let reply: Reply? = lock.withLock {
                heads.append(head)
                return replies.isEmpty ? nil : replies.removeFirst()
            }
            if case .respond(let status, let headers, let body) = reply ?? .respond(status: 500, body: "script exhausted") {
                let text = (["HTTP/1.1 \(status) Scripted", "Content-Length: \(body.utf8.count)", "Connection: close"] + headers)
                    .joined(separator: "\r\n") + "\r\n\r\n" + (head.hasPrefix("HEAD ") ? "" : body)
                _ = text.withCString { send(connection, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
            }
            close(connection)
        }
    }

    /// Reads the head and a Content-Length body (a timeout bounds a client that never finishes).
    private func readRequest(_ fd: Int32) -> String {
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        var headEnd: Int?
        var bodyLength = 0
        while true {
            if let end = headEnd, data.count >= end + bodyLength { break }
            let count = recv(fd, &buffer, buffer.count, 0)
            guard count > 0 else { break }
            data += buffer[0..<count]
            if headEnd == nil, let range = findHeadEnd(data) {
                headEnd = range
                let head = String(decoding: data[0..<range], as: UTF8.self).lowercased()
                if let line = head.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }) {
                    bodyLength = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) ?? 0
                }
                if head.contains("expect: 100-continue") { _ = send(fd, "HTTP/1.1 100 Continue\r\n\r\n", 25, Int32(MSG_NOSIGNAL)) }
            }
        }
        return String(decoding: data[0..<(headEnd ?? data.count)], as: UTF8.self)
    }

    private func findHeadEnd(_ data: [UInt8]) -> Int? {
        guard data.count >= 4 else { return nil }
        for index in 0...(data.count - 4) where data[index] == 13 && data[index + 1] == 10 && data[index + 2] == 13 && data[index + 3] == 10 {
            return index + 4
        }
        return nil
    }
}

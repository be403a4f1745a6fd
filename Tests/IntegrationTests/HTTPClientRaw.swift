import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A plain TCP connection to 127.0.0.1 for what curl cannot show: exactly when the server
/// answers relative to the body (interim 100, a final status before any body byte is sent).
/// Every read is bounded by SO_RCVTIMEO.
final class RawHTTPConnection {
    private let fd: Int32
    private var buffer = [UInt8]()

    struct Head {
        let status: Int
        let headers: [String: String]   // lowercased names
    }

    init(port: Int, readTimeoutSeconds: Int = 10) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw CurlError(message: "socket: \(errno)") }
        var tv = timeval(tv_sec: readTimeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard rc == 0 else { close(fd); throw CurlError(message: "connect: \(errno)") }
    }

    deinit { close(fd) }

    func send(_ text: String) throws { try send(Array(text.utf8)) }

    func send(_ bytes: [UInt8]) throws {
        var off = 0
        while off < bytes.count {
            let n = bytes[off...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw CurlError(message: "send: \(errno)") }
            off += n
        }
    }

    /// Reads one response head (status line + fields); throws on time-out or EOF.
    func readHead() throws -> Head {
        let end: Int = try fill { buf in
            guard buf.count >= 4 else { return nil }
            for i in 0...(buf.count - 4) where buf[i] == 13 && buf[i + 1] == 10 && buf[i + 2] == 13 && buf[i + 3] == 10 { return i + 4 }
            return nil
        }
        let text = String(decoding: buffer[..<end], as: UTF8.self)
        buffer.removeFirst(end)
        var lines = text.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        let status = Int(lines.removeFirst().split(separator: " ")[1]) ?? 0
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return Head(status: status, headers: headers)
    }

    /// Reads a Content-Length body.
    func readBody(_ head: Head) throws -> [UInt8] {
        let length = Int(head.headers["content-length"] ?? "0") ?? 0
        _ = try fill { $0.count >= length ? length : nil }
        let body = Array(buffer.prefix(length))
        buffer.removeFirst(length)
        return body
    }

    /// Head and body of the next final response, skipping interim 1xx heads.
    func readResponse() throws -> (head: Head, body: [UInt8]) {
        var head = try readHead()
        while (100...199).contains(head.status) { head = try readHead() }
        return (head, try readBody(head))
    }

    private func fill<T>(_ done: ([UInt8]) -> T?) throws -> T {
        while true {
            if let r = done(buffer) { return r }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { throw CurlError(message: n == 0 ? "connection closed by the server" : "recv timed out or failed: \(errno)") }
            buffer += chunk[..<n]
        }
    }
}

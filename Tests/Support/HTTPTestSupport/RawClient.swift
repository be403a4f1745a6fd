// A blocking raw-socket HTTP/1.1 client for tests, shared by the server and integration suites:
// it shows exactly what the server sends (no retries, no decompression, interim 1xx heads).
import Glibc
import HTTPWire

public struct ParsedResponse {
    public var status: Int
    public var headers: HTTPFields
    public var body: [UInt8]
    public var text: String { String(decoding: body, as: UTF8.self) }
}

public struct RawClientError: Error, CustomStringConvertible {
    public let description: String
    public init(_ d: String) { description = d }
}

/// A blocking loopback client speaking raw bytes; every read and write is bounded by SO_RCVTIMEO/SO_SNDTIMEO.
public final class RawClient {
    public let fd: Int32
    private var buffer: [UInt8] = []

    public init(port: Int, timeoutSeconds: Int = 10, receiveBuffer: Int32? = nil) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw RawClientError("socket failed: errno \(errno)") }
        var tv = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        if var size = receiveBuffer {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        if rc != 0 { let e = errno; Glibc.close(fd); throw RawClientError("connect failed: errno \(e)") }
    }

    private var closed = false
    deinit { close() }

    public func close() {
        if !closed { Glibc.close(fd); closed = true }
    }

    public func send(_ text: String) throws { try send(Array(text.utf8)) }

    public func send(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { throw RawClientError("send failed: errno \(errno)") }
            sent += n
        }
    }

    /// Reads more into the buffer; false on EOF or error (including the time-out).
    @discardableResult
    public func fill(max: Int = 65536) -> Bool {
        var chunk = [UInt8](repeating: 0, count: max)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, max, 0) }
        if n <= 0 { return false }
        buffer += chunk[0..<n]
        return true
    }

    /// Reads exactly `count` body bytes beyond what is buffered, or fewer on EOF.
    public func read(atLeast count: Int) -> Int {
        while buffer.count < count { if !fill() { break } }
        return buffer.count
    }

    /// True once the server closed the connection (EOF or reset) with nothing more to read;
    /// false if the read timed out (the connection is still open).
    public func isClosedByPeer() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, $0.count, 0) }
            if n > 0 { continue }
            return n == 0 || errno == ECONNRESET
        }
    }

    /// Everything until the server closes (or the read times out).
    public func readToEnd() -> [UInt8] {
        while fill() {}
        defer { buffer = [] }
        return buffer
    }

    public func readHead() throws -> (status: Int, headers: HTTPFields) {
        while true {
            if let end = findHeadEnd() {
                let text = String(decoding: buffer[0..<end], as: UTF8.self)
                buffer.removeFirst(end + 4)
                var lines = text.split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init)
                let statusLine = lines.removeFirst().split(separator: " ")
                guard statusLine.count >= 2, let status = Int(statusLine[1]) else { throw RawClientError("bad status line \(text)") }
                var headers = HTTPFields()
                for line in lines {
                    guard let colon = line.firstIndex(of: ":") else { throw RawClientError("bad header line \(line)") }
                    headers.append(String(line[..<colon]), String(line[line.index(after: colon)...].drop { $0 == " " }))
                }
                return (status, headers)
            }
            guard fill() else {
                throw RawClientError("connection ended before a response head; have \(String(decoding: buffer, as: UTF8.self).debugDescription)")
            }
        }
    }

    public func readResponse(head isHEAD: Bool = false) throws -> ParsedResponse {
        let (status, headers) = try readHead()
        if isHEAD || status < 200 || status == 204 || status == 304 { return ParsedResponse(status: status, headers: headers, body: []) }
        guard let length = headers["Content-Length"].flatMap({ Int($0) }) else {
            return ParsedResponse(status: status, headers: headers, body: readToEnd())
        }
        while buffer.count < length {
            guard fill() else { throw RawClientError("body cut short at \(buffer.count) of \(length)") }
        }
        let body = Array(buffer[0..<length])
        buffer.removeFirst(length)
        return ParsedResponse(status: status, headers: headers, body: body)
    }

    /// Reads and discards `count` body bytes, handing each piece with its offset to `inspect`.
    public func consume(_ count: Int64, inspect: (Int64, ArraySlice<UInt8>) -> Void) throws {
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
            if n <= 0 { throw RawClientError("body cut short at \(offset) of \(count)") }
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

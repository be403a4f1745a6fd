/// Incremental, strict request-head parser (RFC 9112 §2–§6, SPEC §10). The connection keeps the
/// unconsumed bytes and hands them back after every read; the parser remembers how far it has
/// already looked for the end of the head, so a head arriving one byte at a time costs O(n).
/// Several pipelined requests in one buffer are taken one at a time via `consumed`.
public struct RequestParser: Sendable {
    public enum Outcome: Equatable, Sendable {
        case needMore
        /// `consumed` bytes from the start of the buffer belong to this head (body bytes follow).
        case head(RequestHead, consumed: Int)
        /// The connection must answer with this error and close.
        case error(HTTPError)
    }

    public static let maxRequestLine = 8192
    public let maxHeaderBytes: Int
    private var scanned = 0

    public init(maxHeaderBytes: Int = 65536) {
        self.maxHeaderBytes = maxHeaderBytes
    }

    /// Forget progress: call after a head was returned (or when the buffer was compacted).
    public mutating func reset() { scanned = 0 }

    public mutating func parse(_ buf: UnsafeRawBufferPointer) -> Outcome {
        // RFC 9112 §2.2: ignore empty lines before the request line.
        var start = 0
        while buf.count - start >= 2, buf[start] == ASCII.cr, buf[start + 1] == ASCII.lf { start += 2 }
        if start == buf.count || (buf.count - start == 1 && buf[start] == ASCII.cr) { return .needMore }

        guard let lineLF = buf[start...].index(ofByte: ASCII.lf) else {
            return buf.count - start > Self.maxRequestLine + 1 ? .error(.uriTooLong) : .needMore
        }
        if lineLF - start > Self.maxRequestLine + 1 { return .error(.uriTooLong) }
        guard lineLF > start, buf[lineLF - 1] == ASCII.cr else { return .error(.badRequest("request line not terminated by CRLF")) }

        // End of head: the first CRLFCRLF (or a CRLF right after the request line).
        var end: Int? = nil
        var i = max(lineLF, scanned)
        while i < buf.count, let lf = buf[i...].index(ofByte: ASCII.lf) {
            if lf >= 2, buf[lf - 1] == ASCII.cr, buf[lf - 2] == ASCII.lf { end = lf + 1; break }
            i = lf + 1
        }
        guard let headEnd = end else {
            scanned = max(lineLF, buf.count - 1)
            return buf.count - (lineLF + 1) > maxHeaderBytes + 2 ? .error(.headersTooLarge("header section larger than \(maxHeaderBytes) bytes")) : .needMore
        }
        if headEnd - (lineLF + 1) > maxHeaderBytes + 2 {
            return .error(.headersTooLarge("header section larger than \(maxHeaderBytes) bytes"))
        }
        scanned = 0
        switch Self.makeHead(requestLine: buf[start..<(lineLF - 1)], fieldBlock: buf[(lineLF + 1)..<(headEnd - 2)]) {
        case .success(let head): return .head(head, consumed: headEnd)
        case .failure(let e): return .error(e)
        }
    }

    private static func makeHead(requestLine line: UnsafeRawBufferPointer.SubSequence,
                                 fieldBlock: UnsafeRawBufferPointer.SubSequence) -> Result<RequestHead, HTTPError> {
        guard let sp1 = line.index(ofByte: ASCII.sp),
              let sp2 = line[(sp1 + 1)...].index(ofByte: ASCII.sp) else {
            return .failure(.badRequest("request line is not 'method target version'"))
        }
        let method = line[line.startIndex..<sp1], target = line[(sp1 + 1)..<sp2], version = line[(sp2 + 1)...]
        guard !method.isEmpty, method.allSatisfy(ASCII.isToken) else { return .failure(.badRequest("invalid method")) }
        guard !target.isEmpty, ASCII.allTargetBytes(UnsafeRawBufferPointer(rebasing: target)) else { return .failure(.badRequest("invalid request target")) }
        let minor: Int
        switch versionMinor(version) {
        case .some(let m): minor = m
        case .none: return .failure(.badRequest("invalid HTTP version"))
        }
        guard minor >= 0 else { return .failure(.versionNotSupported) }

        var fields = HTTPFields()
        if let e = FieldLines.parse(fieldBlock, into: &fields) { return .failure(e) }

        // One pass over the fields for everything that frames or steers the request.
        var hosts = 0
        var te: [String] = [], cl: [String] = [], connection: [String] = []
        var expect = false
        for f in fields {
            switch f.name.utf8.count {
            case 4 where HTTPFields.sameName(f.name, "Host"): hosts += 1
            case 6 where HTTPFields.sameName(f.name, "Expect"): expect = HTTPFields.sameName(f.value, "100-continue")
            case 10 where HTTPFields.sameName(f.name, "Connection"): connection.append(f.value)
            case 14 where HTTPFields.sameName(f.name, "Content-Length"): cl.append(f.value)
            case 17 where HTTPFields.sameName(f.name, "Transfer-Encoding"): te.append(f.value)
            default: break
            }
        }
        if minor == 1 && hosts == 0 { return .failure(.badRequest("missing Host header")) }
        if hosts > 1 { return .failure(.badRequest("more than one Host header")) }

        var body = RequestBodyKind.none
        if !te.isEmpty {
            if !cl.isEmpty { return .failure(.badRequest("both Transfer-Encoding and Content-Length")) }
            guard te.count == 1, HTTPFields.sameName(te[0], "chunked") else {
                return .failure(.notImplemented("only Transfer-Encoding: chunked is supported"))
            }
            body = .chunked
        } else if !cl.isEmpty {
            var length: Int64? = nil
            for value in cl {
                for part in value.utf8.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false) {
                    guard let n = decimal(part) else { return .failure(.badRequest("invalid Content-Length")) }
                    if let l = length, l != n { return .failure(.badRequest("conflicting Content-Length values")) }
                    length = n
                }
            }
            if let l = length, l > 0 { body = .length(l) }
        }

        var close = false, keepAlive = false
        for value in connection {
            for token in value.utf8.split(separator: UInt8(ascii: ",")) {
                let t = trimmed(token)
                if t.count == 5, HTTPFields.sameName(String(decoding: t, as: UTF8.self), "close") { close = true }
                if t.count == 10, HTTPFields.sameName(String(decoding: t, as: UTF8.self), "keep-alive") { keepAlive = true }
            }
        }

        let path: String, query: String
        if let q = target.index(ofByte: UInt8(ascii: "?")) {
            path = String(decoding: UnsafeRawBufferPointer(rebasing: target[target.startIndex..<q]), as: UTF8.self)
            query = String(decoding: UnsafeRawBufferPointer(rebasing: target[(q + 1)...]), as: UTF8.self)
        } else {
            path = String(decoding: UnsafeRawBufferPointer(rebasing: target), as: UTF8.self)
            query = ""
        }
        return .success(RequestHead(
            method: String(decoding: UnsafeRawBufferPointer(rebasing: method), as: UTF8.self),
            path: path, query: query, versionMinor: minor, headers: fields, body: body,
            expectsContinue: expect && minor == 1 && body != .none,
            keepAlive: minor == 1 ? !close : (keepAlive && !close)))
    }

    /// 0 or 1 for HTTP/1.0 and HTTP/1.1; -1 for a well-formed but unsupported version; nil for garbage.
    private static func versionMinor(_ v: UnsafeRawBufferPointer.SubSequence) -> Int? {
        guard v.count == 8, v.starts(with: "HTTP/".utf8), v[v.startIndex + 6] == UInt8(ascii: ".") else { return nil }
        let major = v[v.startIndex + 5], minor = v[v.startIndex + 7]
        guard (48...57).contains(major), (48...57).contains(minor) else { return nil }
        if major == UInt8(ascii: "1") && (minor == UInt8(ascii: "0") || minor == UInt8(ascii: "1")) { return Int(minor - 48) }
        return -1
    }

    private static func trimmed(_ s: Substring.UTF8View.SubSequence) -> Substring.UTF8View.SubSequence {
        var a = s.startIndex, b = s.endIndex
        while a < b, ASCII.isWhitespace(s[a]) { a = s.index(after: a) }
        while b > a, ASCII.isWhitespace(s[s.index(before: b)]) { b = s.index(before: b) }
        return s[a..<b]
    }

    /// 1*DIGIT without overflow (an empty list element or a sign is invalid).
    private static func decimal(_ s: Substring.UTF8View.SubSequence) -> Int64? {
        let t = trimmed(s)
        guard !t.isEmpty else { return nil }
        var n: Int64 = 0
        for b in t {
            guard (48...57).contains(b) else { return nil }
            let (m, o1) = n.multipliedReportingOverflow(by: 10)
            let (r, o2) = m.addingReportingOverflow(Int64(b - 48))
            if o1 || o2 { return nil }
            n = r
        }
        return n
    }
}

/// Incremental decoder of the chunked transfer coding (RFC 9112 §7.1). It never copies chunk
/// data: each call reports at most one run of body bytes as a range of the caller's buffer, so a
/// sink can pause between runs. Chunk extensions are skipped; trailers are parsed like header
/// fields and bounded by `maxTrailerBytes`.
public struct ChunkedDecoder: Sendable {
    public enum Event: Equatable, Sendable {
        case needMore
        /// Body bytes: this range of the input buffer (already included in `consumed`).
        case data(Range<Int>)
        case end(trailers: HTTPFields)
        case error(HTTPError)
    }

    private enum State: Equatable, Sendable {
        case size(digits: Int), extensions(length: Int), sizeLF, data(remaining: Int64), dataCR, dataLF, trailers, done
    }

    static let maxExtensionBytes = 4096
    public let maxTrailerBytes: Int
    private var state = State.size(digits: 0)
    private var size: Int64 = 0
    private var trailerBytes: [UInt8] = []

    public init(maxTrailerBytes: Int = 65536) {
        self.maxTrailerBytes = maxTrailerBytes
    }

    public var isFinished: Bool { state == .done }

    public mutating func decode(_ input: UnsafeRawBufferPointer) -> (consumed: Int, event: Event) {
        var i = 0
        while i < input.count {
            let b = input[i]
            switch state {
            case .size(let digits):
                if let v = RequestHead.hexValue(b) {
                    guard size <= (Int64.max >> 4) else { return (i, .error(.badRequest("chunk size overflows"))) }
                    size = size << 4 | Int64(v)
                    state = .size(digits: digits + 1)
                } else if digits > 0 && (b == UInt8(ascii: ";") || ASCII.isWhitespace(b)) {
                    state = .extensions(length: 0)
                } else if digits > 0 && b == ASCII.cr {
                    state = .sizeLF
                } else {
                    return (i, .error(.badRequest("invalid chunk size")))
                }
            case .extensions(let length):
                if b == ASCII.cr { state = .sizeLF }
                else if !ASCII.isFieldValueByte(b) { return (i, .error(.badRequest("control character in a chunk extension"))) }
                else if length >= Self.maxExtensionBytes { return (i, .error(.badRequest("chunk extension too long"))) }
                else { state = .extensions(length: length + 1) }
            case .sizeLF:
                guard b == ASCII.lf else { return (i, .error(.badRequest("chunk size line not terminated by CRLF"))) }
                state = size == 0 ? .trailers : .data(remaining: size)
            case .data(let remaining):
                let n = Int(min(remaining, Int64(input.count - i)))
                state = remaining == Int64(n) ? .dataCR : .data(remaining: remaining - Int64(n))
                return (i + n, .data(i..<(i + n)))
            case .dataCR:
                guard b == ASCII.cr else { return (i, .error(.badRequest("chunk data longer than its size"))) }
                state = .dataLF
            case .dataLF:
                guard b == ASCII.lf else { return (i, .error(.badRequest("chunk data not followed by CRLF"))) }
                state = .size(digits: 0)
                size = 0
            case .trailers:
                trailerBytes.append(b)
                if trailerBytes.count > maxTrailerBytes {
                    return (i, .error(.headersTooLarge("trailer section larger than \(maxTrailerBytes) bytes")))
                }
                if let event = finishTrailersIfComplete() { return (i + 1, event) }
            case .done:
                return (i, .end(trailers: HTTPFields()))
            }
            i += 1
        }
        return (i, .needMore)
    }

    /// The trailer section ends with an empty line: either at once ("\r\n") or after fields.
    private mutating func finishTrailersIfComplete() -> Event? {
        let t = trailerBytes, n = t.count
        guard n >= 2, t[n - 1] == ASCII.lf else { return nil }
        guard t[n - 2] == ASCII.cr else { return .error(.badRequest("trailer line not terminated by CRLF")) }
        if n == 2 {
            state = .done
            return .end(trailers: HTTPFields())
        }
        guard n >= 4, t[n - 3] == ASCII.lf, t[n - 4] == ASCII.cr else { return nil }
        var fields = HTTPFields()
        let error = t.withUnsafeBytes { FieldLines.parse($0[0..<(n - 2)], into: &fields) }
        if let error { return .error(error) }
        state = .done
        trailerBytes = []
        return .end(trailers: fields)
    }
}

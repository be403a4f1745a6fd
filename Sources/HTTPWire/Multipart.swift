// multipart/byteranges (RFC 9110 §14.6) laid out as small header buffers between file slices,
// so the body still goes out with sendfile and its length is known before the first byte.

public struct MultipartByteranges: Sendable, Equatable {
    public let boundary: String
    /// `.bytes` (delimiter and part headers) alternating with `.file` slices, then the close delimiter.
    public let parts: [BodyPart]
    /// Exact body length: the sum of `parts`.
    public let contentLength: Int64

    /// The body is `--B CRLF headers CRLF CRLF data` per range, parts separated by CRLF, and
    /// `CRLF --B-- CRLF` at the end. No preamble (like Go's mime/multipart writer).
    public init(ranges: [ByteRange], size: Int64, contentType: String, boundary: String) {
        var parts: [BodyPart] = []
        parts.reserveCapacity(ranges.count * 2 + 1)
        for (i, range) in ranges.enumerated() {
            let head = (i == 0 ? "" : "\r\n") + "--\(boundary)\r\nContent-Type: \(contentType)\r\n"
                + "Content-Range: \(range.contentRange(size: size))\r\n\r\n"
            parts.append(.bytes(Array(head.utf8)))
            parts.append(.file(offset: range.start, length: range.length))
        }
        parts.append(.bytes(Array("\r\n--\(boundary)--\r\n".utf8)))
        self.boundary = boundary
        self.parts = parts
        self.contentLength = parts.reduce(0) { $0 + $1.length }
    }

    /// The response's Content-Type.
    public var contentType: String { "multipart/byteranges; boundary=\(boundary)" }

    /// 32 random hex digits (128 bits from the system generator): a file would have to contain
    /// `--` plus this exact string to confuse a client, which no publisher can arrange in advance.
    public static func randomBoundary() -> String {
        var rng = SystemRandomNumberGenerator()
        return (0..<2).map { _ in
            let hex = String(rng.next() as UInt64, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }.joined()
    }
}

/// One piece of a response body: bytes in memory, or a range of the response's file (sent with
/// sendfile). Multipart/byteranges bodies alternate the two and stay zero-copy.
public enum BodyPart: Sendable, Equatable {
    case bytes([UInt8])
    case file(offset: Int64, length: Int64)

    public var length: Int64 {
        switch self {
        case .bytes(let b): Int64(b.count)
        case .file(_, let length): length
        }
    }
}

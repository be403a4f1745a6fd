import BinaryText
import CryptoPrimitives
import HTTPWire

/// The strong validator of a body modeld generates (a /latest document and its gzip variant,
/// the signed metadata files), and SPEC §4.1's conditional GET on it: one rule, so every such
/// route answers If-None-Match the same way.
enum GeneratedBodyETag {
    /// `"<hex of the first 16 bytes of SHA-256>"`: a different body always gets a different tag.
    static func of(_ bytes: [UInt8]) -> String {
        "\"" + Hex.encode(SHA256.hash(data: bytes).prefix(16)) + "\""
    }

    /// True when the request's If-None-Match names `etag` (weak comparison, RFC 9110 §13.1.2),
    /// so the answer is 304. A malformed list matches nothing.
    static func isNotModified(_ head: RequestHead, etag: String) -> Bool {
        guard head.headers["If-None-Match"] != nil, let tag = EntityTag.parse(etag) else { return false }
        return isNotModified(head, tag: tag)
    }

    /// The same for a tag parsed once (the /latest bodies keep theirs).
    static func isNotModified(_ head: RequestHead, tag: EntityTag) -> Bool {
        guard let value = head.headers["If-None-Match"], let list = EntityTagList.parse(value) else { return false }
        return list.matches(tag, weakComparison: true)
    }
}

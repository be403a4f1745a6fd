// Entity tags and the lists carried by If-Match / If-None-Match (RFC 9110 §8.8.3, §13.1.1-2).

/// One entity tag: `"opaque"` or `W/"opaque"`. `opaque` excludes the quotes.
public struct EntityTag: Sendable, Hashable {
    public var opaque: String
    public var isWeak: Bool

    public init(opaque: String, isWeak: Bool = false) {
        self.opaque = opaque
        self.isWeak = isWeak
    }

    /// Exactly one entity tag, optional whitespace around it; nil when malformed.
    public static func parse(_ text: some StringProtocol) -> EntityTag? {
        var bytes = Substring(text).utf8[...]
        ListSyntax.trimOWS(&bytes)
        guard let tag = scan(&bytes), bytes.isEmpty else { return nil }
        return tag
    }

    /// Consumes `W/"…"` or `"…"` from the front. Scanning (rather than splitting lists on commas)
    /// because `,` is a legal etagc.
    static func scan(_ bytes: inout Substring.UTF8View) -> EntityTag? {
        var weak = false
        if bytes.starts(with: "W/".utf8) {
            weak = true
            bytes.removeFirst(2)
        }
        guard bytes.first == UInt8(ascii: "\"") else { return nil }
        bytes.removeFirst()
        guard let close = bytes.firstIndex(of: UInt8(ascii: "\"")) else { return nil }
        let inner = bytes[..<close]
        // etagc = %x21 / %x23-7E / obs-text
        guard inner.allSatisfy({ $0 == 0x21 || (0x23...0x7E).contains($0) || $0 >= 0x80 }) else { return nil }
        bytes = bytes[bytes.index(after: close)...]
        return EntityTag(opaque: String(decoding: inner, as: UTF8.self), isWeak: weak)
    }

    /// Strong comparison: both strong and the same opaque tag (If-Match, If-Range).
    public func strongMatches(_ other: EntityTag) -> Bool {
        !isWeak && !other.isWeak && opaque == other.opaque
    }

    /// Weak comparison: the same opaque tag, weakness ignored (If-None-Match).
    public func weakMatches(_ other: EntityTag) -> Bool {
        opaque == other.opaque
    }

    public var headerValue: String { (isWeak ? "W/\"" : "\"") + opaque + "\"" }
}

/// The value of If-Match or If-None-Match: `*` or a comma list of tags.
public enum EntityTagList: Sendable, Hashable {
    case any
    case tags([EntityTag])

    /// nil when any element is malformed: such a list matches nothing (the whole header is
    /// suspect, so we do not guess which of its tags was meant). Empty elements are allowed
    /// (RFC 9110 §5.6.1), so `,` is an empty list, which matches nothing either.
    public static func parse(_ text: some StringProtocol) -> EntityTagList? {
        var bytes = Substring(text).utf8[...]
        ListSyntax.trimOWS(&bytes)
        if bytes.elementsEqual("*".utf8) { return .any }
        var tags: [EntityTag] = []
        while true {
            ListSyntax.trimOWS(&bytes)
            guard let first = bytes.first else { return .tags(tags) }
            if first == UInt8(ascii: ",") {
                bytes.removeFirst()
                continue
            }
            guard let tag = EntityTag.scan(&bytes) else { return nil }
            tags.append(tag)
            ListSyntax.trimOWS(&bytes)
            guard bytes.isEmpty || bytes.first == UInt8(ascii: ",") else { return nil }
        }
    }

    public func matches(_ tag: EntityTag, weakComparison: Bool) -> Bool {
        switch self {
        case .any: true
        case .tags(let tags): tags.contains { weakComparison ? $0.weakMatches(tag) : $0.strongMatches(tag) }
        }
    }
}

/// Shared by the comma-list headers of this layer (ETag lists, byte-range sets); namespaced so it
/// cannot clash with the parser's own helpers in this module.
enum ListSyntax {
    /// Drops optional whitespace (SP / HTAB) at both ends.
    static func trimOWS(_ bytes: inout Substring.UTF8View) {
        func isOWS(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 }
        while let first = bytes.first, isOWS(first) { bytes.removeFirst() }
        while let last = bytes.last, isOWS(last) { bytes.removeLast() }
    }
}

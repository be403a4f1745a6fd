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
        trimOWS(&bytes)
        var weak = false
        if bytes.starts(with: "W/".utf8) {
            weak = true
            bytes = bytes.dropFirst(2)
        }
        // DQUOTE *etagc DQUOTE; etagc = %x21 / %x23-7E / obs-text
        guard bytes.count >= 2, bytes.first == UInt8(ascii: "\""), bytes.last == UInt8(ascii: "\"") else { return nil }
        let inner = bytes.dropFirst().dropLast()
        guard inner.allSatisfy({ $0 == 0x21 || (0x23...0x7E).contains($0) || $0 >= 0x80 }) else { return nil }
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
        let elements = text.split(separator: ",", omittingEmptySubsequences: false)
        var tags: [EntityTag] = []
        for element in elements {
            var bytes = Substring(element).utf8[...]
            trimOWS(&bytes)
            if bytes.isEmpty { continue }
            if bytes.elementsEqual("*".utf8) {
                guard elements.count == 1 else { return nil }
                return .any
            }
            guard let tag = EntityTag.parse(element) else { return nil }
            tags.append(tag)
        }
        return .tags(tags)
    }

    public func matches(_ tag: EntityTag, weakComparison: Bool) -> Bool {
        switch self {
        case .any: true
        case .tags(let tags): tags.contains { weakComparison ? $0.weakMatches(tag) : $0.strongMatches(tag) }
        }
    }
}

/// Optional whitespace (SP / HTAB) around list elements and values.
func trimOWS(_ bytes: inout Substring.UTF8View.SubSequence) {
    func isOWS(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 }
    while let first = bytes.first, isOWS(first) { bytes.removeFirst() }
    while let last = bytes.last, isOWS(last) { bytes.removeLast() }
}

/// Query items (`name=value&…`), percent-decoded with `+` as a space (HTML form encoding, which
/// is what SDKs' URL builders emit for query strings).
///
/// Walked over the raw bytes without intermediate arrays: an update check carries up to seven
/// items and is the hot path. Most items need no decoding, so they become (usually inline,
/// allocation-free) small strings directly, and items a route does not read are not decoded.
extension RequestHead {
    /// Every item, in order; nil when an escape is malformed (a route then answers 400 rather
    /// than guess).
    public func queryItems() -> [(name: String, value: String)]? {
        var query = query
        var items: [(name: String, value: String)] = []
        let whole = query.withUTF8 { bytes in
            Self.scanItems(bytes) { name, value in
                guard let n = Self.percentDecoded(name), let v = Self.percentDecoded(value) else { return false }
                items.append((n, v))
                return true
            }
        }
        return whole ? items : nil
    }

    /// The value of the first `name=` item, or nil. Items whose name cannot be decoded are
    /// skipped; a matching item whose value cannot be decoded gives nil.
    public func queryItem(_ name: String) -> String? {
        var found: String?
        queryValues(QueryNames([name])) { _, value in found = value }
        return found
    }

    /// Calls `found(i, value)` once for the first item named `names[i]` (same rules as
    /// `queryItem`; at most 64 names), in query order. One pass in which only the wanted
    /// items' values are decoded: other items cost a byte comparison.
    public func queryValues(_ names: QueryNames, _ found: (_ index: Int, _ value: String?) -> Void) {
        var query = query
        var seen: UInt64 = 0
        _ = query.withUTF8 { bytes in
            Self.scanItems(bytes) { rawName, rawValue in
                guard let i = names.index(of: rawName), seen & (1 << i) == 0 else { return true }
                seen |= 1 << i
                found(i, Self.percentDecoded(rawValue))
                return seen.nonzeroBitCount < names.count
            }
        }
    }

    /// Splits at `&` (empty items skipped) and each item at its first `=` (none: empty value);
    /// stops when `item` returns false, and returns whether it never did.
    private static func scanItems(
        _ bytes: UnsafeBufferPointer<UInt8>, _ item: (Slice<UnsafeBufferPointer<UInt8>>, Slice<UnsafeBufferPointer<UInt8>>) -> Bool
    ) -> Bool {
        var start = 0
        while start < bytes.count {
            var end = start
            while end < bytes.count && bytes[end] != UInt8(ascii: "&") { end += 1 }
            if end > start {
                var eq = start
                while eq < end && bytes[eq] != UInt8(ascii: "=") { eq += 1 }
                guard item(bytes[start..<eq], bytes[min(eq + 1, end)..<end]) else { return false }
            }
            start = end + 1
        }
        return true
    }

    static func percentDecoded(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> String? {
        // The query is a valid String split at ASCII bytes, so an unescaped item is valid UTF-8.
        guard bytes.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }) else {
            return String(decoding: bytes, as: UTF8.self)
        }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = bytes.startIndex
        while i < bytes.endIndex {
            let b = bytes[i]
            if b == UInt8(ascii: "%") {
                guard i + 2 < bytes.endIndex, let hi = hexValue(bytes[i + 1]), let lo = hexValue(bytes[i + 2]) else { return nil }
                out.append(hi << 4 | lo)
                i += 3
            } else {
                out.append(b == UInt8(ascii: "+") ? UInt8(ascii: " ") : b)
                i += 1
            }
        }
        return String(validating: out, as: UTF8.self)
    }
}

/// The item names a route reads, kept as bytes so matching a raw item is a length check and a
/// byte comparison (a route builds its set once).
public struct QueryNames: Sendable {
    let names: [String]
    private let bytes: [[UInt8]]

    public init(_ names: [String]) {
        precondition(names.count <= 64, "at most 64 names")
        self.names = names
        bytes = names.map { Array($0.utf8) }
    }

    var count: Int { names.count }

    func index(of raw: Slice<UnsafeBufferPointer<UInt8>>) -> Int? {
        if raw.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }) {
            guard let decoded = RequestHead.percentDecoded(raw) else { return nil }
            return names.firstIndex(of: decoded)
        }
        return bytes.firstIndex { $0.count == raw.count && $0.elementsEqual(raw) }
    }
}

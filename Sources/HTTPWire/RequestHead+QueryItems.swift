#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
        return query.withUTF8 { Self.formItems($0) }
    }

    /// An `application/x-www-form-urlencoded` body's items: the query's grammar (HTML forms).
    public static func formItems(_ body: [UInt8]) -> [(name: String, value: String)]? {
        body.withUnsafeBufferPointer { formItems($0) }
    }

    private static func formItems(_ bytes: UnsafeBufferPointer<UInt8>) -> [(name: String, value: String)]? {
        var items: [(name: String, value: String)] = []
        let whole = scanItems(bytes) { name, value in
            guard let n = percentDecoded(name), let v = percentDecoded(value) else { return false }
            items.append((n, v))
            return true
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
    /// stops when `item` returns false, and returns whether it never did. Items are buffers, not
    /// slices: a slice's subscript keeps its range check in release builds, and this runs over
    /// every byte of every update check's query.
    private static func scanItems(
        _ bytes: UnsafeBufferPointer<UInt8>, _ item: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>) -> Bool
    ) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        // memchr for the separators: items are about a dozen bytes, and a byte loop tracking
        // both separators costs more than two vectorised scans.
        func find(_ byte: UInt8, from start: Int, to end: Int) -> Int {
            guard start < end, let hit = memchr(base + start, Int32(byte), end - start) else { return end }
            return base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
        }
        var start = 0
        while start < bytes.count {
            let end = find(UInt8(ascii: "&"), from: start, to: bytes.count)
            if end > start {
                let eq = find(UInt8(ascii: "="), from: start, to: end)
                let name = UnsafeBufferPointer(start: base + start, count: eq - start)
                let value = UnsafeBufferPointer(start: base + min(eq + 1, end), count: end - min(eq + 1, end))
                guard item(name, value) else { return false }
            }
            start = end + 1
        }
        return true
    }

    static func isEscaped(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        bytes.contains { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }
    }

    static func percentDecoded(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        // The query is a valid String split at ASCII bytes, so an unescaped item is valid UTF-8.
        guard isEscaped(bytes) else { return String(decoding: bytes, as: UTF8.self) }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            if b == UInt8(ascii: "%") {
                guard i + 2 < bytes.count, let hi = hexValue(bytes[i + 1]), let lo = hexValue(bytes[i + 2]) else { return nil }
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

/// The item names a route reads, kept as bytes so matching an unescaped raw item is a length
/// check and a byte comparison (a route builds its set once).
public struct QueryNames: Sendable {
    let names: [String]
    /// Every plain name's bytes back to back, and each name's range in them; nil for a name
    /// holding `%` or `+`, which only a decoded item can match. Flat, so a lookup retains nothing.
    private let flat: [UInt8]
    private let spans: [Range<Int>?]
    /// Bit i of `byLength[n]` is set when plain name i is n bytes long (n ≥ 32 share the last
    /// slot), so an item is compared only with the names of its length.
    private let byLength: [UInt64]

    public init(_ names: [String]) {
        precondition(names.count <= 64, "at most 64 names")
        self.names = names
        var flat: [UInt8] = [], spans: [Range<Int>?] = [], byLength = [UInt64](repeating: 0, count: 33)
        for (i, n) in names.enumerated() {
            if n.utf8.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }) {
                spans.append(nil)
            } else {
                spans.append(flat.count..<flat.count + n.utf8.count)
                flat += n.utf8
                byLength[min(n.utf8.count, 32)] |= 1 << i
            }
        }
        self.flat = flat
        self.spans = spans
        self.byLength = byLength
    }

    var count: Int { names.count }

    func index(of raw: UnsafeBufferPointer<UInt8>) -> Int? {
        // Bytes equal to a plain name hold no escape, so they match as they are; anything else
        // can only match once decoded.
        var candidates = byLength[min(raw.count, 32)]
        while candidates != 0 {
            let i = candidates.trailingZeroBitCount
            candidates &= candidates - 1
            guard let span = spans[i], span.count == raw.count else { continue }
            let equal = flat.withUnsafeBufferPointer { flat in
                var j = 0
                while j < raw.count && flat[span.lowerBound + j] == raw[j] { j += 1 }
                return j == raw.count
            }
            if equal { return i }
        }
        guard RequestHead.isEscaped(raw), let decoded = RequestHead.percentDecoded(raw) else { return nil }
        return names.firstIndex(of: decoded)
    }
}

/// A strict RFC 8259 reader over raw bytes: UTF-8 only, no BOM, no trailing commas, no comments,
/// no leading zeros, no raw control characters in strings, no lone surrogates, no trailing data.
/// Duplicate keys in an object are rejected: the stored line must be unambiguous for every reader.
/// Nesting deeper than `maxDepth` is rejected so a hostile body cannot exhaust the stack.
public struct JSONReader {
    public struct Failure: Error, Equatable, Sendable, CustomStringConvertible {
        public let offset: Int
        public let reason: String
        public var description: String { "invalid JSON at byte \(offset): \(reason)" }

        public init(offset: Int, reason: String) {
            self.offset = offset
            self.reason = reason
        }
    }

    public static let maxDepth = 64

    /// Parses exactly one JSON text spanning the whole of `bytes`.
    public static func parse(_ bytes: [UInt8]) throws(Failure) -> JSONNode {
        try bytes.withUnsafeBufferPointer { (buffer) throws(Failure) -> JSONNode in
            try whole(buffer) { (reader) throws(Failure) -> JSONNode in try reader.parseValue(depth: 0) }
        }
    }

    /// Reads exactly one JSON text spanning the whole of `bytes` with `value`, which reads the
    /// value itself (whitespace around it is allowed, anything else after it is not).
    static func whole<T>(_ bytes: UnsafeBufferPointer<UInt8>, _ value: (inout JSONReader) throws(Failure) -> T) throws(Failure) -> T {
        var reader = JSONReader(bytes: bytes)
        reader.skipWhitespace()
        let result = try value(&reader)
        reader.skipWhitespace()
        guard reader.position == bytes.count else { throw reader.failure("unexpected data after the JSON value") }
        return result
    }

    let bytes: UnsafeBufferPointer<UInt8>
    private(set) var position = 0

    init(bytes: UnsafeBufferPointer<UInt8>, position: Int = 0) {
        self.bytes = bytes
        self.position = position
    }

    func failure(_ reason: String) -> Failure { Failure(offset: position, reason: reason) }

    private mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    mutating func expect(_ literal: StaticString) throws(Failure) {
        let count = literal.utf8CodeUnitCount
        guard bytes.count - position >= count else { throw failure("invalid literal") }
        for i in 0..<count where bytes[position + i] != literal.utf8Start[i] { throw failure("invalid literal") }
        position += count
    }

    mutating func parseValue(depth: Int) throws(Failure) -> JSONNode { try readValue(depth: depth, build: true)! }

    /// Reads past one value and validates it exactly as `parseValue` would, building nothing
    /// (no allocation for numbers, literals and ASCII strings without escapes).
    mutating func skipValue(depth: Int) throws(Failure) { _ = try readValue(depth: depth, build: false) }

    /// The one value reader behind parsing and skipping, so both reject the same texts; the
    /// node only when `build`.
    private mutating func readValue(depth: Int, build: Bool) throws(Failure) -> JSONNode? {
        guard position < bytes.count else { throw failure("unexpected end of input") }
        let start = position
        let value: JSONValue?
        switch bytes[position] {
        case UInt8(ascii: "{"):
            let d = depth + 1
            var members: [(key: String, node: JSONNode)] = []
            try readObject(depth: d) { (r, key) throws(Failure) in
                if build { members.append((r.string(key), try r.parseValue(depth: d))) } else { try r.skipValue(depth: d) }
            }
            value = build ? .object(members) : nil
        case UInt8(ascii: "["):
            let d = depth + 1
            var elements: [JSONNode] = []
            try readArray(depth: d) { (r) throws(Failure) in
                if build { elements.append(try r.parseValue(depth: d)) } else { try r.skipValue(depth: d) }
            }
            value = build ? .array(elements) : nil
        case UInt8(ascii: "\""): value = try readString(build: build).map(JSONValue.string)
        case UInt8(ascii: "t"): try expect("true"); value = .bool(true)
        case UInt8(ascii: "f"): try expect("false"); value = .bool(false)
        case UInt8(ascii: "n"): try expect("null"); value = .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            let literal = try scanNumber()
            value = build ? .number(try number(literal)) : nil
        default: throw failure("unexpected character")
        }
        guard build, let value else { return nil }
        return JSONNode(value: value, range: start..<position)
    }

    /// A member's key as read: its text between the quotes, and whether that text is the key
    /// itself (ASCII without escapes, nearly every key), so keys compare as bytes, no String.
    struct Key {
        let text: Range<Int>
        let plain: Bool
    }

    private mutating func readKey() throws(Failure) -> Key {
        let start = position + 1
        let plain = try readString(build: false) == nil
        return Key(text: start..<(position - 1), plain: plain)
    }

    /// The key as a String; a key that is not plain is decoded again (it was read once, so it
    /// cannot fail).
    func string(_ key: Key) -> String {
        if key.plain { return String(decoding: UnsafeBufferPointer(rebasing: bytes[key.text]), as: UTF8.self) }
        var r = self
        r.position = key.text.lowerBound - 1
        // Cannot fail: this key was already read once by the same reader.
        return ((try? r.readString(build: true)) ?? nil) ?? ""
    }

    /// Whether `key` names `name` as String equality says (canonical equivalence beyond ASCII);
    /// `nameIsASCII` lets plain keys compare as bytes.
    func key(_ key: Key, is name: String, nameIsASCII: Bool) -> Bool {
        guard key.plain && nameIsASCII else { return string(key) == name }
        guard name.utf8.count == key.text.count else { return false }
        let text = UnsafeBufferPointer(rebasing: bytes[key.text])
        return name.utf8.withContiguousStorageIfAvailable { $0.elementsEqual(text) } ?? name.utf8.elementsEqual(text)
    }

    private func same(_ a: Key, _ b: Key) -> Bool {
        guard a.plain && b.plain else { return string(a) == string(b) }
        return a.text.count == b.text.count && bytes[a.text].elementsEqual(bytes[b.text])
    }

    /// The object at `position`, each member's value read by `member(&reader, key)`: the one
    /// object loop behind parsing, skipping and picking members, so all reject the same
    /// objects (duplicate keys included, at any depth).
    mutating func readObject(depth: Int, _ member: (inout JSONReader, Key) throws(Failure) -> Void) throws(Failure) {
        guard depth <= Self.maxDepth else { throw failure("nesting deeper than \(Self.maxDepth)") }
        position += 1
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
            position += 1
            return
        }
        // Small objects (events are) check their keys by scan, kept on the stack; a set only once
        // an object grows, so a hostile object with many keys stays linear.
        try withUnsafeTemporaryAllocation(of: Key.self, capacity: 16) { (seen) throws(Failure) in
            var count = 0
            var large = Set<String>()
            while true {
                skipWhitespace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { throw failure("expected a string key") }
                let keyOffset = position
                let key = try readKey()
                let duplicate: Bool
                if count < seen.count {
                    duplicate = seen[..<count].contains { same($0, key) }
                    (seen.baseAddress! + count).initialize(to: key)
                } else {
                    if large.isEmpty { large = Set(seen.map(string)) }
                    duplicate = !large.insert(string(key)).inserted
                }
                count += 1
                guard !duplicate else { throw Failure(offset: keyOffset, reason: "duplicate key \"\(string(key))\"") }
                skipWhitespace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { throw failure("expected ':'") }
                position += 1
                skipWhitespace()
                try member(&self, key)
                if try atEnd(UInt8(ascii: "}")) { return }
            }
        }
    }

    /// The array at `position`, each element read by `element(&reader)`.
    mutating func readArray(depth: Int, _ element: (inout JSONReader) throws(Failure) -> Void) throws(Failure) {
        guard depth <= Self.maxDepth else { throw failure("nesting deeper than \(Self.maxDepth)") }
        position += 1
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
            position += 1
            return
        }
        while true {
            skipWhitespace()
            try element(&self)
            if try atEnd(UInt8(ascii: "]")) { return }
        }
    }

    /// After a member or an element: true at `close` (read past it), false after a comma.
    private mutating func atEnd(_ close: UInt8) throws(Failure) -> Bool {
        skipWhitespace()
        guard position < bytes.count else { throw failure("unexpected end of input") }
        switch bytes[position] {
        case UInt8(ascii: ","):
            position += 1
            return false
        case close:
            position += 1
            return true
        default: throw failure("expected ',' or '\(Character(Unicode.Scalar(close)))'")
        }
    }

    /// Reads past the number at `position` (RFC 8259 grammar) and returns its literal's range.
    mutating func scanNumber() throws(Failure) -> Range<Int> {
        let start = position
        func digits(_ r: inout JSONReader) -> Int {
            let s = r.position
            while r.position < r.bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(r.bytes[r.position]) { r.position += 1 }
            return r.position - s
        }
        if bytes[position] == UInt8(ascii: "-") { position += 1 }
        guard position < bytes.count else { throw failure("invalid number") }
        if bytes[position] == UInt8(ascii: "0") {
            position += 1
        } else if digits(&self) == 0 {
            throw failure("invalid number")
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            position += 1
            guard digits(&self) > 0 else { throw failure("invalid number") }
        }
        if position < bytes.count, bytes[position] | 0x20 == UInt8(ascii: "e") {
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") { position += 1 }
            guard digits(&self) > 0 else { throw failure("invalid number") }
        }
        return start..<position
    }

    /// The value of a literal `scanNumber` accepted.
    private func number(_ range: Range<Int>) throws(Failure) -> Double {
        let literal = UnsafeBufferPointer(rebasing: bytes[range])
        // Fast path for the common case: integers of at most 15 digits, which a Double holds exactly.
        if literal.count <= 15 {
            let negative = literal[0] == UInt8(ascii: "-")
            let digits = literal[(negative ? 1 : 0)...]
            if digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) {
                let magnitude = digits.reduce(Int64(0)) { $0 * 10 + Int64($1 - UInt8(ascii: "0")) }
                return Double(negative ? -magnitude : magnitude)
            }
        }
        let text = String(decoding: literal, as: UTF8.self)
        // The grammar guarantees Double can read it; overflow gives ±inf, which callers reject where finiteness matters.
        guard let d = Double(text) else { throw Failure(offset: range.upperBound, reason: "invalid number") }
        return d
    }

    private mutating func hex4() throws(Failure) -> UInt32 {
        guard bytes.count - position >= 4 else { throw failure("invalid \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let c = bytes[position]
            let d: UInt8
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = c - UInt8(ascii: "A") + 10
            default: throw failure("invalid \\u escape")
            }
            v = v << 4 | UInt32(d)
            position += 1
        }
        return v
    }

    /// The string at `position`. Without `build`, nil for ASCII without escapes: nothing to
    /// check beyond the scan (other strings are still decoded and validated, then dropped).
    mutating func readString(build: Bool) throws(Failure) -> String? {
        position += 1 // opening quote
        let start = position
        // Fast path: no escapes, so the bytes are the string (after UTF-8 validation).
        var ascii = true
        while position < bytes.count {
            let c = bytes[position]
            if c == UInt8(ascii: "\"") {
                if ascii && !build {
                    position += 1
                    return nil
                }
                let raw = UnsafeBufferPointer(rebasing: bytes[start..<position])
                // ASCII needs no validation, and nearly every string of an event is ASCII:
                // String(validating:as:) looks up generic metadata at run time on every call,
                // a fifth of the guard evaluator's time before this (Benchmarks/guard).
                let s = ascii ? String(decoding: raw, as: UTF8.self) : String(validating: raw, as: UTF8.self)
                guard let s else { throw Failure(offset: start, reason: "invalid UTF-8") }
                position += 1
                return s
            }
            if c == UInt8(ascii: "\\") { break }
            guard c >= 0x20 else { throw failure("control character in string") }
            if c >= 0x80 { ascii = false }
            position += 1
        }
        var out = Array(bytes[start..<position])
        while position < bytes.count {
            let c = bytes[position]
            switch c {
            case UInt8(ascii: "\""):
                guard let s = String(validating: out, as: UTF8.self) else { throw Failure(offset: start, reason: "invalid UTF-8") }
                position += 1
                return s
            case UInt8(ascii: "\\"):
                position += 1
                guard position < bytes.count else { throw failure("unexpected end of input") }
                let e = bytes[position]
                position += 1
                switch e {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800...0xDBFF).contains(scalar) {
                        guard bytes.count - position >= 2, bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u") else {
                            throw failure("lone surrogate")
                        }
                        position += 2
                        let low = try hex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw failure("lone surrogate") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(scalar) {
                        throw failure("lone surrogate")
                    }
                    out.append(contentsOf: String(Unicode.Scalar(scalar)!).utf8)
                default: throw failure("invalid escape")
                }
            default:
                guard c >= 0x20 else { throw failure("control character in string") }
                out.append(c)
                position += 1
            }
        }
        throw failure("unterminated string")
    }
}

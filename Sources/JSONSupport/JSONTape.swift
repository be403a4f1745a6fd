/// A JSON text read once into a flat array of its values (a "tape"): each value's kind, byte
/// range and the index after its subtree, with no node, string or array built per value. For a
/// reader of many typed fields of many objects — catalog.json's 10,000 releases (SPEC §17.1),
/// where a tree of nodes was a third of decoding — which looks members up by name and reads
/// only the values it wants. The same loops as `JSONReader.parse`, so it rejects exactly what
/// `parse` rejects.
public struct JSONTape: Sendable {
    public enum Kind: UInt8, Sendable {
        case null, bool, number, string, array, object
    }

    /// 16 bytes. An object's children are its members' key (a string) and value, in turn.
    struct Entry {
        var kind: Kind
        /// A string of ASCII without escapes: its bytes between the quotes are its text.
        var plain: Bool
        var start: Int32
        var end: Int32
        /// The index after this value and everything inside it.
        var next: Int32
    }

    public let bytes: [UInt8]
    private let entries: [Entry]

    /// The one JSON text spanning the whole of `bytes`.
    public init(_ bytes: [UInt8]) throws(JSONReader.Failure) {
        guard bytes.count < Int32.max else { throw JSONReader.Failure(offset: 0, reason: "text larger than 2 GiB") }
        var entries: [Entry] = []
        entries.reserveCapacity(bytes.count / 12)
        try bytes.withUnsafeBufferPointer { (buffer) throws(JSONReader.Failure) in
            try JSONReader.whole(buffer) { (reader) throws(JSONReader.Failure) in try reader.readTape(depth: 0, into: &entries) }
        }
        self.bytes = bytes
        self.entries = entries
    }

    /// The whole text's value.
    public var root: Int { 0 }

    public func kind(_ value: Int) -> Kind { entries[value].kind }

    /// The value's text in `bytes` (a string's with its quotes).
    public func range(_ value: Int) -> Range<Int> { Int(entries[value].start)..<Int(entries[value].end) }

    /// The value of the member `name` of `object`; nil when absent or `object` is not one.
    /// Plain keys compare as bytes, length first: the lookup of a release's every field.
    public func member(_ object: Int, _ name: String) -> Int? {
        var name = name
        return name.withUTF8 { n in
            entries.withUnsafeBufferPointer { t in
                bytes.withUnsafeBufferPointer { b in
                    guard t[object].kind == .object else { return nil }
                    var key = object + 1
                    let end = Int(t[object].next)
                    while key < end {
                        let e = t[key]
                        if e.plain {
                            if Int(e.end - e.start) - 2 == n.count, Self.equal(n, b.baseAddress! + Int(e.start) + 1) { return key + 1 }
                        } else if string(key) == String(decoding: n, as: UTF8.self) {
                            return key + 1
                        }
                        key = Int(t[key + 1].next)
                    }
                    return nil
                }
            }
        }
    }

    private static func equal(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafePointer<UInt8>) -> Bool {
        for i in 0..<a.count where a[i] != b[i] { return false }
        return true
    }

    /// Whether the value's text is exactly `text`: a decoder's test that an entry is the one it
    /// already holds. Eight bytes at a time.
    public func text(of value: Int, equals text: [UInt8]) -> Bool {
        let start = Int(entries[value].start), count = Int(entries[value].end) - start
        guard text.count == count else { return false }
        return bytes.withUnsafeBytes { b in
            text.withUnsafeBytes { t in
                var i = 0
                while i + 8 <= count {
                    guard b.loadUnaligned(fromByteOffset: start + i, as: UInt64.self) == t.loadUnaligned(fromByteOffset: i, as: UInt64.self) else {
                        return false
                    }
                    i += 8
                }
                while i < count {
                    guard b[start + i] == t[i] else { return false }
                    i += 1
                }
                return true
            }
        }
    }

    /// The members' names of `object` in order (empty for a non-object); for tests.
    func keys(_ object: Int) -> [String] {
        guard entries[object].kind == .object else { return [] }
        var keys: [String] = []
        var key = object + 1
        while key < Int(entries[object].next) {
            keys.append(string(key)!)
            key = Int(entries[key + 1].next)
        }
        return keys
    }

    /// The elements of `array` in order; nil when it is not an array.
    public func elements(_ array: Int) -> [Int]? {
        guard entries[array].kind == .array else { return nil }
        var elements: [Int] = []
        var element = array + 1
        while element < Int(entries[array].next) {
            elements.append(element)
            element = Int(entries[element].next)
        }
        return elements
    }

    /// The string's text; nil for any other kind.
    public func string(_ value: Int) -> String? {
        let e = entries[value]
        guard e.kind == .string else { return nil }
        if e.plain { return String(decoding: bytes[Int(e.start + 1)..<Int(e.end - 1)], as: UTF8.self) }
        return bytes.withUnsafeBufferPointer { buffer in
            var reader = JSONReader(bytes: buffer, position: Int(e.start))
            return (try? reader.readString(build: true)) ?? nil   // cannot fail: read once already
        }
    }

    /// `body` over the string's UTF-8 text without making a String (a plain string's bytes in
    /// place); nil for any other kind.
    public func withText<T>(_ value: Int, _ body: (UnsafeBufferPointer<UInt8>) -> T) -> T? {
        let e = entries[value]
        guard e.kind == .string else { return nil }
        guard e.plain else {
            var text = string(value)!
            return text.withUTF8(body)
        }
        return bytes.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[Int(e.start + 1)..<Int(e.end - 1)])) }
    }

    /// A number written as a whole number, read exactly from its literal (a Double holds 53
    /// bits); nil for anything else, `1.0`, `1e3` and values beyond Int64 included.
    public func integer(_ value: Int) -> Int64? {
        let e = entries[value]
        guard e.kind == .number else { return nil }
        var i = Int(e.start)
        let negative = bytes[i] == UInt8(ascii: "-")
        if negative { i += 1 }
        var magnitude: Int64 = 0
        while i < Int(e.end) {
            let digit = bytes[i] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            let (times, o1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, o2) = negative ? times.subtractingReportingOverflow(Int64(digit)) : times.addingReportingOverflow(Int64(digit))
            guard !o1, !o2 else { return nil }
            magnitude = sum
            i += 1
        }
        return magnitude
    }

}

extension JSONReader {
    /// `readValue`'s loops writing the tape instead of building nodes.
    mutating func readTape(depth: Int, into tape: inout [JSONTape.Entry]) throws(Failure) {
        guard position < bytes.count else { throw failure("unexpected end of input") }
        let index = tape.count
        tape.append(JSONTape.Entry(kind: .null, plain: false, start: Int32(position), end: 0, next: 0))
        var plain = false
        let kind: JSONTape.Kind
        switch bytes[position] {
        case UInt8(ascii: "{"):
            let d = depth + 1
            try readObject(depth: d) { (r, key) throws(Failure) in
                let next = Int32(tape.count + 1)
                tape.append(JSONTape.Entry(kind: .string, plain: key.plain, start: Int32(key.text.lowerBound - 1),
                                           end: Int32(key.text.upperBound + 1), next: next))
                try r.readTape(depth: d, into: &tape)
            }
            kind = .object
        case UInt8(ascii: "["):
            let d = depth + 1
            try readArray(depth: d) { (r) throws(Failure) in try r.readTape(depth: d, into: &tape) }
            kind = .array
        case UInt8(ascii: "\""):
            plain = try readString(build: false) == nil
            kind = .string
        case UInt8(ascii: "t"): try expect("true"); kind = .bool
        case UInt8(ascii: "f"): try expect("false"); kind = .bool
        case UInt8(ascii: "n"): try expect("null"); kind = .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            _ = try scanNumber()
            kind = .number
        default: throw failure("unexpected character")
        }
        tape[index].kind = kind
        tape[index].plain = plain
        tape[index].end = Int32(position)
        tape[index].next = Int32(tape.count)
    }
}

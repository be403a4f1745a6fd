/// A tiny JSON writer into a byte buffer: key order is the order of calls, strings are escaped
/// per RFC 8259 (quote, backslash, control characters; `/` and non-ASCII pass through as UTF-8).
/// Used for the pre-serialised `/latest` bodies and the catalog file, where JSONEncoder's key
/// order and speed are not good enough.
public struct JSONWriter: Sendable {
    public private(set) var bytes: [UInt8] = []
    private var needsComma: [Bool] = []

    public init(capacity: Int = 512) { bytes.reserveCapacity(capacity) }

    public var string: String { String(decoding: bytes, as: UTF8.self) }

    /// Empties the writer for the next document, keeping its buffer (one writer per loop).
    public mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        needsComma.removeAll(keepingCapacity: true)
        pendingKey = false
    }

    public mutating func beginObject() { valuePrefix(); bytes.append(UInt8(ascii: "{")); needsComma.append(false) }
    public mutating func endObject() { needsComma.removeLast(); bytes.append(UInt8(ascii: "}")) }
    public mutating func beginArray() { valuePrefix(); bytes.append(UInt8(ascii: "[")); needsComma.append(false) }
    public mutating func endArray() { needsComma.removeLast(); bytes.append(UInt8(ascii: "]")) }

    /// Writes `"key":`; the next call writes its value.
    public mutating func key(_ key: String) {
        valuePrefix()
        JSONString.append(key, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        pendingKey = true
    }

    public mutating func string(_ value: String) { valuePrefix(); JSONString.append(value, to: &bytes) }
    public mutating func int(_ value: Int64) { valuePrefix(); bytes += Array(String(value).utf8) }
    public mutating func int(_ value: Int) { int(Int64(value)) }
    public mutating func bool(_ value: Bool) { valuePrefix(); bytes += Array((value ? "true" : "false").utf8) }
    public mutating func null() { valuePrefix(); bytes += Array("null".utf8) }
    /// Splices already-serialised JSON (e.g. a pre-built document) as one value.
    public mutating func raw(_ json: [UInt8]) { valuePrefix(); bytes += json }

    /// The document written so far as a file's one line: a newline appended in place, where
    /// `bytes + [newline]` copied a catalog of megabytes once more.
    public mutating func line() -> [UInt8] {
        bytes.append(UInt8(ascii: "\n"))
        return bytes
    }

    public mutating func field(_ k: String, _ v: String) { key(k); string(v) }
    public mutating func field(_ k: String, _ v: Int64) { key(k); int(v) }
    public mutating func field(_ k: String, _ v: Int) { key(k); int(v) }
    public mutating func stringArray(_ values: [String]) {
        beginArray()
        for v in values { string(v) }
        endArray()
    }

    private var pendingKey = false

    private mutating func valuePrefix() {
        if pendingKey { pendingKey = false; return }
        guard !needsComma.isEmpty else { return }
        if needsComma[needsComma.count - 1] { bytes.append(UInt8(ascii: ",")) } else { needsComma[needsComma.count - 1] = true }
    }
}

/// A parsed JSON value. Every node keeps the byte range it came from, so callers can copy a
/// client's object verbatim instead of re-encoding it, or read a number's exact literal (prices
/// must not detour through Double: 0.0004 stays 0.0004).
public struct JSONNode: Sendable {
    public var value: JSONValue
    public var range: Range<Int>
}

public enum JSONValue: Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONNode])
    /// Members in document order; keys are unique (the reader rejects duplicates).
    case object([(key: String, node: JSONNode)])
}

extension JSONValue {
    /// The member named `key` of an object, nil for a missing key or a non-object.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.key == key }?.node.value
    }

    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    public var numberValue: Double? {
        if case .number(let d) = self { return d }
        return nil
    }
}

extension JSONNode {
    /// The member node named `key` of an object, nil for a missing key or a non-object.
    public subscript(key: String) -> JSONNode? {
        guard case .object(let members) = value else { return nil }
        return members.first { $0.key == key }?.node
    }

    public var isNull: Bool {
        if case .null = value { return true }
        return false
    }

    /// The node's source text in `bytes`, the buffer it was parsed from.
    public func literal(in bytes: [UInt8]) -> String { String(decoding: bytes[range], as: UTF8.self) }

    /// A number written as a whole number, read exactly from its literal (a Double holds 53
    /// bits); nil for anything else, `1.0` and `1e3` included.
    public func integer(in bytes: [UInt8]) -> Int64? {
        guard case .number = value else { return nil }
        return Int64(literal(in: bytes))
    }
}

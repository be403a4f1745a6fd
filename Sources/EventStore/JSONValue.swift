/// A parsed JSON value. Every node keeps the byte range it came from, so callers can copy a
/// client's object verbatim instead of re-encoding it.
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

    public var numberValue: Double? {
        if case .number(let d) = self { return d }
        return nil
    }
}

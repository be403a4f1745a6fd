/// Header (or trailer) fields in the order received. Names keep their case as sent; look-ups
/// are ASCII case-insensitive. A small array beats a dictionary for the handful of fields a
/// request carries.
public struct HTTPFields: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    public typealias Field = (name: String, value: String)
    private var fields: [Field] = []

    public init() {}

    public init(dictionaryLiteral elements: (String, String)...) {
        fields = elements.map { (name: $0.0, value: $0.1) }
    }

    public var count: Int { fields.count }
    public var isEmpty: Bool { fields.isEmpty }

    /// First value of `name`, or nil.
    public subscript(_ name: String) -> String? {
        for f in fields where Self.sameName(f.name, name) { return f.value }
        return nil
    }

    /// Every value of `name`, in order.
    public func values(_ name: String) -> [String] {
        fields.filter { Self.sameName($0.name, name) }.map(\.value)
    }

    public func contains(_ name: String) -> Bool { self[name] != nil }

    public mutating func append(_ name: String, _ value: String) {
        fields.append((name: name, value: value))
    }

    /// Replaces every field called `name` by one with `value`.
    public mutating func set(_ name: String, _ value: String) {
        remove(name)
        append(name, value)
    }

    public mutating func remove(_ name: String) {
        fields.removeAll { Self.sameName($0.name, name) }
    }

    public func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }

    public static func == (a: HTTPFields, b: HTTPFields) -> Bool {
        a.fields.count == b.fields.count && zip(a.fields, b.fields).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }

    /// ASCII case-insensitive comparison without allocating lowercased copies.
    static func sameName(_ a: String, _ b: String) -> Bool {
        // Lengths first (O(1) for native strings): most comparisons are lookups of a name that
        // is not there, and walking two UTF-8 views costs far more.
        guard a.utf8.count == b.utf8.count else { return false }
        var ia = a.utf8.makeIterator(), ib = b.utf8.makeIterator()
        while true {
            switch (ia.next(), ib.next()) {
            case (nil, nil): return true
            case let (x?, y?) where ASCII.lower(x) == ASCII.lower(y): continue
            default: return false
            }
        }
    }
}

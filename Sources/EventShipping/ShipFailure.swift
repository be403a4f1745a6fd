/// Why `events ship` or reading shipped segments back stopped: a message naming the problem.
public struct ShipFailure: Error, CustomStringConvertible {
    public let message: String

    init(_ message: String) { self.message = message }

    public var description: String { message }
}

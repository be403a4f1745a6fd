/// Why a mirror pass stopped: a message naming the problem, and whether it was the caller's
/// input (modelctl exits 2 for those, 1 for the rest).
public struct MirrorFailure: Error, CustomStringConvertible {
    public let message: String
    public let isUsage: Bool

    init(_ message: String, isUsage: Bool = false) {
        self.message = message
        self.isUsage = isUsage
    }

    public var description: String { message }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A failed system call: the errno with the operation and path it concerns, for messages an
/// operator can act on. Callers map it into their own error vocabulary.
public struct IOFailure: Error, Sendable, Equatable, CustomStringConvertible {
    public let path: String
    public let operation: String
    public let code: Int32

    public init(path: String, operation: String, code: Int32) {
        self.path = path
        self.operation = operation
        self.code = code
    }

    public var description: String { "\(operation) \(path): \(String(cString: strerror(code)))" }

    /// A full disk or quota rather than a broken one (HTTP 507 where a server reports it).
    public var isOutOfSpace: Bool { code == ENOSPC || code == EDQUOT }
}

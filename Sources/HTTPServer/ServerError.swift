import Glibc

/// Start-up failures (bind, epoll, threads) with the failing call and errno text.
public struct ServerError: Error, Sendable, CustomStringConvertible {
    public let message: String

    public init(_ message: String) { self.message = message }

    static func system(_ call: String, _ code: Int32) -> ServerError {
        ServerError("\(call) failed: \(String(cString: strerror(code))) (errno \(code))")
    }

    public var description: String { message }
}

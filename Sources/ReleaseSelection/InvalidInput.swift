/// A selection input that breaks its rule (SPEC §3, §3.1), naming the parameter the way the
/// server's `invalid_parameter` error and the client's messages do (`requires.min_os`, `ram_mb`).
public struct InvalidInput: Error, Equatable, Sendable, CustomStringConvertible {
    public let parameter: String
    public let message: String

    public init(_ parameter: String, _ message: String) {
        self.parameter = parameter
        self.message = message
    }

    public var description: String { "\(parameter): \(message)" }
}

/// `[a-z0-9_-]{1,32}`: channels, platforms and variant names.
package enum NameRule {
    package static func matches(_ s: some StringProtocol) -> Bool {
        s.withUTF8Bytes { b in
            (1...32).contains(b.count) && b.allSatisfy {
                ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z")) || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9"))
                    || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-")
            }
        }
    }
}

// Checking `Authorization: Bearer <token>` against the configured admin token in constant time
// (SPEC §7.1), so response timing reveals nothing about how much of a guess was right.
import BinaryText

/// The configured admin token (from `admin_token` or the token file): the token `admin` (SPEC §15.1).
public struct AdminToken: Sendable {
    private let bytes: [UInt8]

    public init(_ token: String) {
        bytes = Array(token.utf8)
    }

    /// The token of `Authorization: Bearer <token>` (scheme case-insensitive, RFC 9110 §11.1),
    /// or nil for no header, another scheme or an empty token.
    public static func bearer(_ authorization: String?) -> String? {
        guard let authorization else { return nil }
        let value = Array(authorization.utf8)
        let scheme = Array("bearer ".utf8)
        guard value.count > scheme.count,
              zip(value, scheme).allSatisfy({ ($0 | 0x20) == $1 }) else { return nil }
        let offered = value[scheme.count...].drop { $0 == 0x20 }
        return offered.isEmpty ? nil : String(decoding: offered, as: UTF8.self)
    }

    /// True for exactly the token (a bearer token, the console's sign-in form), in constant time.
    public func matches(token: String) -> Bool {
        ConstantTime.equal(Array(token.utf8), bytes)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One `trusted_proxies` entry (SPEC §8): a CIDR block (`10.0.0.0/8`, `fd00::/8`) or a single
/// address. IPv4-mapped IPv6 addresses (`::ffff:10.1.2.3`) count as the IPv4 address, so a
/// proxy matches whether the server listens on `0.0.0.0` or `[::]`.
public struct AddressRange: Sendable, Equatable, CustomStringConvertible {
    /// 4 or 16 bytes, host bits cleared.
    let network: [UInt8]
    let prefixLength: Int

    public init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = Self.bytes(of: String(parts[0])) else { return nil }
        let bits = address.count * 8
        var length = bits
        if parts.count == 2 {
            guard !parts[1].isEmpty, parts[1].count <= 3, parts[1].allSatisfy({ $0.isASCII && $0.isNumber }),
                  let n = Int(parts[1]), n <= bits else { return nil }
            length = n
        }
        network = Self.masked(address, length)
        prefixLength = length
    }

    /// Whether `address` (an IP literal, IPv6 with or without brackets) is inside the block.
    public func contains(_ address: String) -> Bool {
        guard let bytes = Self.bytes(of: address), bytes.count == network.count else { return false }
        return Self.masked(bytes, prefixLength) == network
    }

    public var description: String {
        var text = [CChar](repeating: 0, count: 64)
        _ = network.withUnsafeBytes { inet_ntop(network.count == 4 ? AF_INET : AF_INET6, $0.baseAddress, &text, 64) }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) + "/\(prefixLength)"
    }

    /// The address's bytes: 4 for IPv4 (and IPv4-mapped IPv6), 16 for IPv6; nil if not a literal.
    static func bytes(of text: String) -> [UInt8]? {
        var literal = Substring(text)
        if literal.hasPrefix("["), literal.hasSuffix("]") { literal = literal.dropFirst().dropLast() }
        var buffer = [UInt8](repeating: 0, count: 16)
        if String(literal).withCString({ inet_pton(AF_INET, $0, &buffer) }) == 1 { return Array(buffer.prefix(4)) }
        guard String(literal).withCString({ inet_pton(AF_INET6, $0, &buffer) }) == 1 else { return nil }
        if buffer.prefix(10).allSatisfy({ $0 == 0 }), buffer[10] == 0xff, buffer[11] == 0xff { return Array(buffer.suffix(4)) }
        return buffer
    }

    private static func masked(_ bytes: [UInt8], _ length: Int) -> [UInt8] {
        bytes.enumerated().map { i, byte in
            let keep = min(8, max(0, length - i * 8))
            return keep == 8 ? byte : byte & ~(0xff >> keep)
        }
    }
}

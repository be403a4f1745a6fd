// `listen` values: "HOST:PORT" with an IP literal host ("[::]:8080" for IPv6), and the
// public base URL derived from the bound address when `public_base_url` is unset (SPEC §8).
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Configuration {
    public struct ListenAddress: Sendable, Equatable, CustomStringConvertible {
        /// An IPv4 or IPv6 literal, without brackets.
        public var host: String
        /// 0 = an ephemeral port chosen by the kernel (tests).
        public var port: Int

        public init(host: String, port: Int) {
            self.host = host
            self.port = port
        }

        public var isIPv6: Bool { host.contains(":") }

        public var description: String { isIPv6 ? "[\(host)]:\(port)" : "\(host):\(port)" }

        /// Parses "HOST:PORT"; `localhost` is taken as 127.0.0.1 so that no name resolution is needed.
        public static func parse(_ text: String) -> ListenAddress? {
            let host: Substring
            let portText: Substring
            if text.hasPrefix("[") {
                guard let close = text.firstIndex(of: "]"),
                      text[text.index(after: close)...].hasPrefix(":") else { return nil }
                host = text[text.index(after: text.startIndex)..<close]
                portText = text[text.index(close, offsetBy: 2)...]
                guard isIPLiteral(String(host), family: AF_INET6) else { return nil }
            } else {
                guard let colon = text.lastIndex(of: ":") else { return nil }
                host = text[..<colon] == "localhost" ? "127.0.0.1" : text[..<colon]
                portText = text[text.index(after: colon)...]
                guard isIPLiteral(String(host), family: AF_INET) else { return nil }
            }
            guard let port = parsePort(portText) else { return nil }
            return ListenAddress(host: String(host), port: port)
        }

        static func parsePort(_ text: Substring) -> Int? {
            guard !text.isEmpty, text.count <= 5, text.allSatisfy({ $0.isASCII && $0.isNumber }),
                  let port = Int(text), port <= 65_535 else { return nil }
            return port
        }

        private static func isIPLiteral(_ host: String, family: Int32) -> Bool {
            var buffer = [UInt8](repeating: 0, count: 16)
            return host.withCString { inet_pton(family, $0, &buffer) } == 1
        }
    }

    /// `http://` + the listen address as a client on this host reaches it: a wildcard host
    /// (`0.0.0.0`, `::`) read as 127.0.0.1 (SPEC §7: modelctl's default server).
    public var localServerURL: String {
        let host = listen.host == "0.0.0.0" || listen.host == "::" ? "127.0.0.1" : listen.description.dropLast(":\(listen.port)".count)
        return "http://\(host):\(listen.port)"
    }

    /// `public_base_url`, or — when unset — `http://` + the bound address, with wildcard hosts
    /// replaced by loopback. The caller logs a warning when `publicBaseURL` is nil.
    public func resolvedPublicBaseURL(boundPort: Int) -> String {
        if let publicBaseURL { return publicBaseURL }
        let host: String = switch listen.host {
        case "0.0.0.0": "127.0.0.1"
        case "::": "[::1]"
        case let literal where listen.isIPv6: "[\(literal)]"
        case let literal: literal
        }
        return "http://\(host):\(boundPort)"
    }
}

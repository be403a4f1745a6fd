import Console
import HTTPWire
import ModeldConfig

/// The client address of a request (SPEC §8 `trusted_proxies`, §15.1): the peer's address,
/// unless the peer is a trusted proxy — then `X-Forwarded-For` is read from the right, skipping
/// trusted hops, and the first address not trusted is the client (each proxy appends the peer it
/// saw, so only the entries our own proxies wrote can be believed; anything left of them is
/// whatever the client chose to send). Pure: the sign-in throttle keys on it, and every audit
/// line (admin API and console alike) records it.
struct ClientAddress: Sendable {
    /// `trusted_proxies` (SPEC §8).
    let trusted: [AddressRange]

    /// The client address of a request that came from `peer`.
    func of(_ head: RequestHead, peer: String) -> String {
        Self.resolve(peer: peer, forwardedFor: head.headers.values("X-Forwarded-For"), trusted: trusted)
    }

    /// `peer`: `host:port` or `[v6]:port` as the listener describes it; `forwardedFor`: every
    /// `X-Forwarded-For` field line in order.
    static func resolve(peer: String, forwardedFor: [String], trusted: [AddressRange]) -> String {
        var address = unbracketed(LoginThrottle.address(ofPeer: peer))
        guard isTrusted(address, trusted) else { return address }
        let hops = forwardedFor.joined(separator: ",").split(separator: ",").map { $0.trimmingSpaces() }
        for hop in hops.reversed() {
            // A hop that is no address (`unknown`, garbage) ends the walk at the last one believed.
            guard let normalised = normalised(hop) else { return address }
            address = normalised
            if !isTrusted(address, trusted) { return address }
        }
        return address
    }

    private static func isTrusted(_ address: String, _ trusted: [AddressRange]) -> Bool {
        trusted.contains { $0.contains(address) }
    }

    private static func unbracketed(_ text: String) -> String {
        text.hasPrefix("[") && text.hasSuffix("]") ? String(text.dropFirst().dropLast()) : text
    }

    /// An X-Forwarded-For entry as an address literal: `1.2.3.4`, `2001:db8::1`, `[2001:db8::1]`,
    /// and the `1.2.3.4:5678` / `[v6]:port` forms some proxies write; nil for anything else.
    private static func normalised(_ hop: Substring) -> String? {
        let text = String(hop)
        guard !text.contains("/") else { return nil }
        if AddressRange(text) != nil { return unbracketed(text) }
        let host = LoginThrottle.address(ofPeer: text)
        return host != text && AddressRange(host) != nil ? unbracketed(host) : nil
    }
}

private extension Substring {
    func trimmingSpaces() -> Substring {
        var s = self
        while let c = s.first, c == " " || c == "\t" { s = s.dropFirst() }
        while let c = s.last, c == " " || c == "\t" { s = s.dropLast() }
        return s
    }
}

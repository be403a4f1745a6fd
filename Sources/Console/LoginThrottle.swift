import Synchronization

/// Slows down guessing a token at the sign-in form (SPEC §15, §15.1). Per client address: the
/// k-th consecutive failure is answered after d = 200 ms × 2^(k−1) (at most 10 s). The token is
/// compared before the throttle is asked, so a correct token is never refused nor delayed by
/// failures — an attacker's guesses cannot lock an operator out. Each wrong guess holds the
/// guesser's connection for its delay, and no answer comes sooner (a quick 429 would itself say
/// "wrong"), so guessing costs a connection per guess for seconds. A success clears the address;
/// quiet addresses are forgotten.
public final class LoginThrottle: Sendable {
    public static let baseDelayMillis: Int64 = 200
    public static let maxDelayMillis: Int64 = 10_000
    static let forgetAfterMillis: Int64 = 15 * 60_000
    static let maxPeers = 10_000

    private struct Entry { var failures: Int; var lastFailure: Int64 }
    private let peers = Mutex<[String: Entry]>([:])

    public init() {}

    /// Records a wrong token from `address`; returns how long to wait before answering it.
    public func failed(address: String, now: Int64) -> Int64 {
        peers.withLock { table in
            if table.count >= Self.maxPeers { table = table.filter { now - $0.value.lastFailure < Self.forgetAfterMillis } }
            if table.count >= Self.maxPeers { table.removeAll() }   // a flood from many addresses: start over
            var e = table[address] ?? Entry(failures: 0, lastFailure: now)
            if now - e.lastFailure >= Self.forgetAfterMillis { e.failures = 0 }
            e.failures += 1
            e.lastFailure = now
            table[address] = e
            return min(Self.maxDelayMillis, Self.baseDelayMillis << min(e.failures - 1, 16))
        }
    }

    public func succeeded(address: String) {
        _ = peers.withLock { $0.removeValue(forKey: address) }
    }

    /// The address part of `host:port` / `[v6]:port`: one browser uses many source ports.
    public static func address(ofPeer peer: String) -> String {
        guard let colon = peer.lastIndex(of: ":") else { return peer }
        return String(peer[..<colon])
    }
}

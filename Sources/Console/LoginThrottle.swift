import Synchronization

/// Slows down guessing the admin token at the sign-in form (SPEC §15). Per peer address: the
/// k-th consecutive failure is answered after d = 200 ms × 2^(k−1) (at most 10 s), and for d
/// after that answer every further attempt from the peer, right or wrong, is refused 429 at
/// once, so neither parallel nor immediate retries gain anything. A success clears the peer;
/// quiet peers are forgotten.
public final class LoginThrottle: Sendable {
    public enum Verdict: Equatable, Sendable {
        case proceed
        case throttled(retryAfterMillis: Int64)
    }

    public static let baseDelayMillis: Int64 = 200
    public static let maxDelayMillis: Int64 = 10_000
    static let forgetAfterMillis: Int64 = 15 * 60_000
    static let maxPeers = 10_000

    private struct Entry { var failures: Int; var blockedUntil: Int64; var lastFailure: Int64 }
    private let peers = Mutex<[String: Entry]>([:])

    public init() {}

    public func check(peer: String, now: Int64) -> Verdict {
        peers.withLock { table in
            guard let e = table[peer], e.blockedUntil > now else { return .proceed }
            return .throttled(retryAfterMillis: e.blockedUntil - now)
        }
    }

    /// Records a wrong token; returns how long to wait before answering it.
    public func failed(peer: String, now: Int64) -> Int64 {
        peers.withLock { table in
            if table.count >= Self.maxPeers { table = table.filter { now - $0.value.lastFailure < Self.forgetAfterMillis } }
            if table.count >= Self.maxPeers { table.removeAll() }   // a flood from many peers: start over
            var e = table[peer] ?? Entry(failures: 0, blockedUntil: 0, lastFailure: now)
            if now - e.lastFailure >= Self.forgetAfterMillis { e.failures = 0 }
            e.failures += 1
            let delay = min(Self.maxDelayMillis, Self.baseDelayMillis << min(e.failures - 1, 16))
            e.blockedUntil = now + 2 * delay
            e.lastFailure = now
            table[peer] = e
            return delay
        }
    }

    public func succeeded(peer: String) {
        _ = peers.withLock { $0.removeValue(forKey: peer) }
    }

    /// The address part of `host:port` / `[v6]:port`: one browser uses many source ports.
    public static func address(ofPeer peer: String) -> String {
        guard let colon = peer.lastIndex(of: ":") else { return peer }
        return String(peer[..<colon])
    }
}

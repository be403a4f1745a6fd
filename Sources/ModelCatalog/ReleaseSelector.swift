import Crypto

/// Selection for an update check (SPEC §3), pure: releases in, one answer out.
public enum ReleaseSelector {
    public struct Selection: Equatable, Sendable {
        /// The release the client gets, nil when none is eligible (404 `no_model`).
        public let release: Release?
        /// True when a partial rollout matched or could have matched — the answer may differ per
        /// client, so the route must answer `Cache-Control: private` (SPEC §4.1).
        public let dependsOnClientID: Bool

        public init(release: Release?, dependsOnClientID: Bool) {
            self.release = release
            self.dependsOnClientID = dependsOnClientID
        }
    }

    /// Among active releases of `channel` with `sdk_min <= sdk < sdk_max`, the highest `seq`
    /// that is either at 100 % or has `clientID` inside its rollout bucket.
    public static func select(
        from releases: some Collection<Release>, sdk: SDKVersion, channel: String, clientID: String?
    ) -> Selection {
        var best: Release?            // highest-seq release at 100 %
        var bestPartial: Release?     // highest-seq partial release the client is in
        var partialAboveBest = false  // some partial release (0 < % < 100) outranks `best`
        var partials: [Release] = []
        for r in releases where r.state == .active && r.channel == channel && r.covers(sdk) {
            if r.rolloutPercent >= 100 {
                if best.map({ r.seq > $0.seq }) ?? true { best = r }
            } else if r.rolloutPercent > 0 {
                partials.append(r)
            }
        }
        // Hash only the partial releases that could beat the 100 % winner.
        for r in partials where best.map({ r.seq > $0.seq }) ?? true {
            partialAboveBest = true
            if let clientID, bucket(releaseID: r.id, clientID: clientID) < r.rolloutPercent,
               bestPartial.map({ r.seq > $0.seq }) ?? true {
                bestPartial = r
            }
        }
        // Without a client_id the URL alone decides the answer (never in a partial rollout), so
        // it stays publicly cacheable; with one, a partial rollout that could win makes it private.
        return Selection(release: bestPartial ?? best, dependsOnClientID: clientID != nil && partialAboveBest)
    }

    /// First 4 bytes of SHA-256(`releaseID + ":" + clientID`) as a big-endian integer, mod 100.
    public static func bucket(releaseID: String, clientID: String) -> Int {
        var hasher = SHA256()
        hasher.update(data: Array(releaseID.utf8))
        hasher.update(data: [UInt8(ascii: ":")])
        hasher.update(data: Array(clientID.utf8))
        let digest = hasher.finalize()
        var value: UInt32 = 0
        for (i, byte) in digest.enumerated() where i < 4 { value = value << 8 | UInt32(byte) }
        return Int(value % 100)
    }
}

import CryptoPrimitives

/// What selection reads of a release (SPEC §3, §3.1). The server's catalog entries and the
/// client's rules entries (SPEC §9.2) both conform, so one `ReleaseSelector` answers for both.
public protocol SelectableRelease {
    associatedtype SelectionVariant: SelectableVariant
    var id: String { get }
    var seq: Int64 { get }
    var channel: String { get }
    var rolloutPercent: Int { get }
    /// `active` (paused and retired releases are never selected).
    var isSelectable: Bool { get }
    /// Whether a client at `sdk` is inside `[sdk_min, sdk_max)`.
    func covers(_ sdk: SDKVersion) -> Bool
    var variants: [SelectionVariant] { get }
    /// The model it applies on top of (SPEC §3.2), nil for a release that stands alone.
    var base: ReleaseBase? { get }
}

extension SelectableRelease {
    /// Whether a check reporting `bases` may get this release at all (SPEC §3.2): a release
    /// with a base only when the check reports that base. The one per-release eligibility rule
    /// beside state, channel and SDK range.
    @inlinable
    public func isEligible(reporting bases: ReportedBases) -> Bool {
        guard let base else { return true }
        return bases.reports(base)
    }
}

/// What variant choice reads of a variant (SPEC §3.1).
public protocol SelectableVariant {
    /// Answered by update checks (not removed).
    var isLive: Bool { get }
    var requires: VariantRequirements { get }
}

/// Selection for an update check (SPEC §3, §3.1, §11.2), pure: releases in, one answer out.
/// The only implementation: modeld's `/latest` and ModeldClient's rules evaluation call it.
public enum ReleaseSelector {
    public struct Selection<R>: Sendable where R: Sendable {
        /// The release the client gets, nil when none is eligible (404 `no_model`).
        public let release: R?
        /// True when a partial rollout matched or could have matched — the answer may differ per
        /// client, so the route must answer `Cache-Control: private` (SPEC §4.1).
        public let dependsOnClientID: Bool

        public init(release: R?, dependsOnClientID: Bool) {
            self.release = release
            self.dependsOnClientID = dependsOnClientID
        }
    }

    /// The releases that can answer a client at `sdk` in `channel` (SPEC §3): the highest-seq
    /// active release at 100 %, and the partial rollouts (0 < % < 100) that outrank it. Everything
    /// else of the channel that covers `sdk` answers nobody. `select` and `shares` both start here.
    public struct Contenders<R> {
        /// The highest-seq active release at 100 %: what a client in no partial rollout gets.
        public var full: R?
        /// Active partial rollouts with a higher seq than `full`, in catalog order.
        public var partials: [R] = []

        public init() {}
    }

    @inlinable
    public static func contenders<C: Collection>(
        in releases: C, sdk: SDKVersion, channel: String, bases: ReportedBases = .none
    ) -> Contenders<C.Element> where C.Element: SelectableRelease {
        // Positions, not elements: a release is a large value (a copy retains each of its
        // fields) and a check reads a whole channel, so the scan reads fields in place and only
        // the contenders are copied out, once each.
        var full: C.Index?
        var fullSeq = Int64.min
        var partials: [C.Index] = []
        var i = releases.startIndex
        while i != releases.endIndex {
            defer { releases.formIndex(after: &i) }
            guard releases[i].isSelectable && releases[i].channel == channel && releases[i].covers(sdk)
                && releases[i].isEligible(reporting: bases) else { continue }
            let percent = releases[i].rolloutPercent
            if percent >= 100 {
                if full == nil || releases[i].seq > fullSeq { full = i; fullSeq = releases[i].seq }
            } else if percent > 0 {
                partials.append(i)
            }
        }
        var result = Contenders<C.Element>()
        result.full = full.map { releases[$0] }
        // Only the partial releases that could beat the 100 % winner are ever hashed.
        for p in partials where full == nil || releases[p].seq > fullSeq { result.partials.append(releases[p]) }
        return result
    }

    /// Among active releases of `channel` with `sdk_min <= sdk < sdk_max` whose base (if any)
    /// the check reports, the highest `seq` that is either at 100 % or has `clientID` inside its
    /// rollout bucket.
    @inlinable
    public static func select<C: Collection>(
        from releases: C, sdk: SDKVersion, channel: String, clientID: String?, bases: ReportedBases = .none
    ) -> Selection<C.Element> where C.Element: SelectableRelease & Sendable {
        let contenders = contenders(in: releases, sdk: sdk, channel: channel, bases: bases)
        var bestPartial: C.Element?     // highest-seq partial release the client is in
        if let clientID {
            for r in contenders.partials where bucket(releaseID: r.id, clientID: clientID) < r.rolloutPercent {
                if bestPartial.map({ r.seq > $0.seq }) ?? true { bestPartial = r }
            }
        }
        // Without a client_id the URL alone decides the answer (never in a partial rollout), so
        // it stays publicly cacheable; with one, a partial rollout that could win makes it private.
        return Selection(release: bestPartial ?? contenders.full,
                         dependsOnClientID: clientID != nil && !contenders.partials.isEmpty)
    }

    /// The share of clients (with a `client_id`) each contender answers, highest seq first: a
    /// partial release gets its rollout fraction of the clients no higher one took (buckets of
    /// different releases are independent hashes), the 100 % release gets the rest. The shares
    /// sum to 1 with a 100 % release, to less without one (the rest gets 404 `no_model`).
    public static func shares<R: SelectableRelease>(of contenders: Contenders<R>) -> [(release: R, share: Double)] {
        var remaining = 1.0
        var result: [(release: R, share: Double)] = []
        for r in contenders.partials.sorted(by: { $0.seq > $1.seq }) {
            let share = remaining * Double(r.rolloutPercent) / 100
            result.append((r, share))
            remaining -= share
        }
        if let full = contenders.full { result.append((full, remaining)) }
        return result
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

    /// A guarded release's arms at stage `percent` (SPEC §11.2): treatment = bucket < p (served
    /// the challenger, as `select` does), control = bucket ≥ 100 − p (served what they would get
    /// without it); nil = in neither.
    public enum Arm: String, Sendable {
        case treatment, control
    }

    public static func arm(releaseID: String, clientID: String, percent: Int) -> Arm? {
        arm(bucket: bucket(releaseID: releaseID, clientID: clientID), percent: percent)
    }

    public static func arm(bucket b: Int, percent: Int) -> Arm? {
        if b < percent { return .treatment }
        return b >= 100 - percent ? .control : nil
    }
}

extension SelectableRelease {
    /// The first live variant whose every condition holds for `device` (SPEC §3.1), nil = the
    /// release's own file.
    @inlinable
    public func variantIndex(for device: DeviceAttributes) -> Int? {
        guard !device.isEmpty else { return nil }   // no attributes: every condition fails
        // By index, reading fields in place: a closure over elements copies each variant
        // (a dozen retained fields) on every update check that names its device.
        let variants = self.variants
        return variants.indices.first { variants[$0].isLive && variants[$0].requires.matches(device) }
    }
}

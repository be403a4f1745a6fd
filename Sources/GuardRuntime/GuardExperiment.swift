import EventStore
import Guardrails
import ModelCatalog

/// One running guard's arms (SPEC §11.2): which clients are in which arm and their running
/// sums. Fed every stored event once; the decisions read `arms`.
public struct GuardExperiment {
    public let releaseID: String
    /// `releaseID` lowercased, as events' `model_id` compare (once, not per event).
    private let releaseKey: String
    public private(set) var release: Release
    public private(set) var arms = GuardAccumulator()
    /// The SRM test's running minimum (`SRMFigures.pValue`), handed from one evaluation to the next.
    public var srmPValue: Double?
    private var clients = ClientTable()
    /// Clients of the channel (their event names one of its releases) seen with events that did
    /// not count (outside both arms, or a treatment client not yet on the challenger): the
    /// `pending` diagnostic (§11.2 v5: other channels' clients are no part of it).
    private var pending: Set<UInt64> = []
    /// Ids (lowercased) of the channel's other releases: a control client's events count when
    /// they name one of them.
    private var channelReleases: Set<String> = []

    public init(release: Release, catalog: Catalog, srmPValue: Double? = nil) {
        releaseID = release.id
        self.srmPValue = srmPValue
        releaseKey = release.id.lowercased()
        self.release = release
        update(release: release, catalog: catalog)
    }

    /// The release as the catalog holds it now (its stage grows with each advance).
    public mutating func update(release: Release, catalog: Catalog) {
        self.release = release
        channelReleases = Set(catalog.releases.lazy.filter { $0.channel == release.channel && $0.id != release.id }.map { $0.id.lowercased() })
    }

    /// Clients of the channel with no counted event yet (a lagging treatment client may already
    /// be in the SRM test: it is still pending here).
    public var pendingClients: Int { pending.count { (clients[$0]?.events ?? 0) == 0 } }

    /// Counts one stored event per §11.1/§11.2; anything else is ignored or pending.
    public mutating func record(_ event: GuardEvent) {
        guard let plan = release.guardPlan, let clientID = event.clientID,
              let receivedAt = event.receivedAt.flatMap(Timestamp.init(rfc3339:))?.millisecondsSinceEpoch,
              // Events from before the guard began (a rebuild reads its whole first day).
              receivedAt >= plan.runtime.startedAt ?? 0,
              event.name == plan.metric.name,
              let sdk = event.sdk.flatMap(SDKVersion.init), release.covers(sdk)
        else { return }
        let key = Self.key(clientID)
        let modelID = event.modelID?.lowercased()
        let onChallenger = modelID == releaseKey
        let onOtherRelease = modelID.map(channelReleases.contains) ?? false
        guard onChallenger || onOtherRelease else { return }
        // `??` hashes the bucket only for a client not in an arm yet.
        guard var t = clients[key] ?? ArmRule.entering(bucket: ReleaseSelector.bucket(releaseID: release.id, clientID: clientID),
                                                       percent: release.rolloutPercent, plan: plan) else {
            pending.insert(key)
            return
        }
        let x = plan.metric.observation(outcome: event.outcome, value: event.value)
        ArmRule.record(events: x == nil ? 0 : 1, total: x ?? 0, onChallenger: onChallenger, onOtherRelease: onOtherRelease,
                       receivedAt: receivedAt, stage: release.rolloutPercent, plan: plan, into: &t, arms: &arms)
        if t.inSRM || t.events > 0 { clients.set(t, for: key) }
        if t.events == 0 { pending.insert(key) }
    }

    /// 64-bit FNV-1a of the client id: a table key of 8 bytes whatever the id's length (SPEC
    /// §11.5 memory bound; a collision among a million clients has odds of about 3e-8).
    private static func key(_ clientID: String) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in clientID.utf8 { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        return h
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Guardrails

/// Every release ever published plus the sequence high-water mark (SPEC §2, §3). A value:
/// readers share one immutable snapshot; `CatalogStore.mutate` produces the next one.
public struct Catalog: Equatable, Sendable {
    public static let formatVersion = 1

    /// In publication order (ascending `seq`).
    public private(set) var releases: [Release]
    /// The `seq` the next publish gets. Stored so a seq is never reused even if entries vanish.
    public private(set) var nextSeq: Int64
    /// Bumped by `CatalogStore.mutate` on every change, never lowered (SPEC §12); 0 for a catalog
    /// written before the field existed, until its first change.
    public package(set) var catalogVersion: Int64
    /// The base of every `url` derived from this catalog (SPEC §9.1 "the catalog's base URL"):
    /// recorded by the first change, then changed only by `CatalogStore.setPublicBaseURL`, so the
    /// derived file never depends on which writer wrote last. nil until recorded.
    public package(set) var publicBaseURL: String?
    /// Lowercased id → index: O(1) lookups by id and by file name (`<id>.<ext>`).
    private var byID: [String: Int] = [:]

    public static let empty = Catalog()

    public init() {
        releases = []
        nextSeq = 1
        catalogVersion = 0
        publicBaseURL = nil
    }

    /// Checks the invariants a loaded catalog must hold: unique ids (case-insensitively, they
    /// name files), unique seqs, `next_seq` above every seq, a version that is not negative.
    public init(releases: [Release], nextSeq: Int64? = nil, catalogVersion: Int64 = 0, publicBaseURL: String? = nil) throws(CatalogError) {
        guard catalogVersion >= 0 else {
            throw CatalogError(.corruptCatalog, parameter: "catalog_version", "catalog_version \(catalogVersion) is negative")
        }
        // catalog.json is stored in seq order: sorted again only when it is not.
        let sorted = zip(releases, releases.dropFirst()).allSatisfy { $0.seq <= $1.seq } ? releases : releases.sorted { $0.seq < $1.seq }
        var lastSeq: Int64 = 0
        byID.reserveCapacity(sorted.count)
        for (i, r) in sorted.enumerated() {
            guard byID.updateValue(i, forKey: Self.idKey(r.id)) == nil else {
                throw CatalogError(.corruptCatalog, parameter: "id", "duplicate release id \(r.id)")
            }
            guard r.seq != lastSeq else { throw CatalogError(.corruptCatalog, parameter: "seq", "duplicate seq \(r.seq)") }
            lastSeq = r.seq
        }
        let next = nextSeq ?? lastSeq + 1
        guard next > lastSeq else {
            throw CatalogError(.corruptCatalog, parameter: "next_seq", "next_seq \(next) is not above the highest seq \(lastSeq)")
        }
        self.releases = sorted
        self.nextSeq = next
        self.catalogVersion = catalogVersion
        if let publicBaseURL {
            guard Self.isBaseURL(publicBaseURL) else {
                throw CatalogError(.corruptCatalog, parameter: "public_base_url", "\(publicBaseURL) is not an http:// or https:// URL")
            }
        }
        self.publicBaseURL = publicBaseURL
        // Variant files are named by their own UUIDs: no two files of the catalog may share one.
        var variantIDs = Set<String>()
        for r in sorted where !r.variants.isEmpty {
            for v in r.variants {
                let id = Self.idKey(v.fileID)
                guard byID[id] == nil, variantIDs.insert(id).inserted else {
                    throw CatalogError(.corruptCatalog, parameter: "variants", "variant \(v.name) of \(r.id) reuses id \(v.fileID)")
                }
            }
        }
    }

    /// Whether `id` names any file of the catalog (a release or a variant): new ids must not.
    package func isIDInUse(_ id: String) -> Bool {
        let lower = Self.idKey(id)
        return byID[lower] != nil || releases.contains { $0.variants.contains { $0.fileID.lowercased() == lower } }
    }

    /// What a catalog may record as its base: `http(s)://` and no spaces or control characters
    /// (writers pass values already checked by the configuration's stricter rule).
    public static func isBaseURL(_ url: String) -> Bool {
        let lower = url.lowercased()
        guard let scheme = ["http://", "https://"].first(where: { lower.hasPrefix($0) }) else { return false }
        return url.utf8.count > scheme.utf8.count && url.utf8.allSatisfy { $0 > 0x20 && $0 != 0x7F }
    }

    /// An id as the index's key: lowercased, without a new string when it has no capital (ids
    /// are written lowercase; `lowercased()` allocated one for each of 10,000 at every load).
    private static func idKey(_ id: String) -> String {
        id.utf8.contains { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) } ? id.lowercased() : id
    }

    /// Ids compare case-insensitively: they name files, and two ids differing only in case
    /// would be one file on a case-insensitive volume.
    public func release(id: String) -> Release? {
        byID[Self.idKey(id)].map { releases[$0] }
    }

    /// The release whose file is `name` (`<id>.<ext>`), for `GET /models/<file>` (any state,
    /// until garbage-collected).
    public func release(file name: String) -> Release? {
        guard let dot = name.firstIndex(of: "."), let r = release(id: String(name[..<dot])), r.file == name, r.fileDeletedAt == nil else {
            return nil
        }
        return r
    }

    public func select(
        sdk: SDKVersion, channel: String = Release.defaultChannel, clientID: String?, bases: ReportedBases = .none
    ) -> ReleaseSelector.Selection<Release> {
        ReleaseSelector.select(from: releases, sdk: sdk, channel: channel, clientID: clientID, bases: bases)
    }

    // MARK: - Changes (pure; CatalogStore applies them under the lock)

    /// Appends a release built by `make(seq)`; the id must be new (SPEC §3: ids are never reused).
    @discardableResult
    package mutating func append(_ make: (Int64) throws(CatalogError) -> Release) throws(CatalogError) -> Release {
        var release = try make(nextSeq)
        guard self.release(id: release.id) == nil else { throw .idInUse(release.id) }
        release.noteExposure(at: release.publishedAt)
        try checkGuardOverlap(release)
        byID[Self.idKey(release.id)] = releases.count
        releases.append(release)
        nextSeq += 1
        return release
    }

    package func index(of id: String) throws(CatalogError) -> Int {
        if let i = byID[Self.idKey(id)] { return i }
        throw CatalogError(.notFound, parameter: "id", "no release with id \(id)")
    }

    /// A release whose running guard covers clients of `channel` in `[sdkMin, sdkMax)` (SPEC
    /// §11.1), other than `excluding`.
    public func runningGuard(channel: String, sdkMin: SDKVersion, sdkMax: SDKVersion?, excluding id: String? = nil) -> Release? {
        releases.first { r in
            r.id.lowercased() != id?.lowercased() && r.hasRunningGuard && r.channel == channel
                && (sdkMax.map { r.sdkMinVersion < $0 } ?? true) && (r.sdkMaxVersion.map { sdkMin < $0 } ?? true)
        }
    }

    /// 409 `experiment_running` when `release` has a running guard and another one overlaps it:
    /// two challengers ramped over the same clients would each count the other as control.
    package func checkGuardOverlap(_ release: Release) throws(CatalogError) {
        guard release.hasRunningGuard,
              let other = runningGuard(channel: release.channel, sdkMin: release.sdkMinVersion, sdkMax: release.sdkMaxVersion, excluding: release.id)
        else { return }
        throw .experimentRunning(other)
    }

    /// Applies a patch; a retired release cannot change (409 `retired`). A manual rollout or
    /// state change stops the guard (`guardStops`; SPEC §11.4: the operator always wins); a new guard
    /// starts at its first stage, like a guarded publish.
    public mutating func apply(_ patch: ReleasePatch, to id: String, now: Timestamp) throws(CatalogError) -> Release {
        let i = try index(of: id)
        var r = releases[i]
        guard r.state != .retired else { throw .retired(r.id) }
        if r.guardStops(on: patch) { r.guardPlan?.runtime.status = .stopped }
        if let plan = patch.guardPlan {
            guard r.rolloutPercent < 100 else {
                throw .invalid("guard", "release \(r.id) already reached 100 %; publish the challenger as a new release")
            }
            r.rolloutPercent = plan.stages[0]
            r.guardPlan = plan.started(at: now)
        }
        if let p = patch.rolloutPercent {
            try Release.validateRollout(p)
            r.rolloutPercent = p
        }
        if let m = patch.sdkMax { try r.setSDKMax(m) }
        if let l = patch.label {
            try Release.validateLabel(l)
            r.label = l
        }
        if let s = patch.state {
            r.state = s
            if s == .retired { r.retiredAt = now }
        }
        if let b = patch.base {
            // A check may already hold it on the old base (docs/decisions/adapters.md).
            guard !releases[i].mayHaveServed else {
                throw .invalid("base", "release \(r.id) may have served clients already; publish the adapter as a new release")
            }
            r.base = b
        }
        r.noteExposure(at: now)
        try checkGuardOverlap(r)   // a new guard, or a running one whose sdk_max moved
        releases[i] = r
        return r
    }

    /// The guard evaluator's change (SPEC §11.4): new runtime fields, the next stage's rollout
    /// and a pause, on a release whose guard still runs at `stage`. Anything else (a manual
    /// change raced the evaluation) leaves the catalog alone and answers nil: the operator wins.
    public mutating func applyGuardDecision(
        id: String, stage: Int, runtime: GuardPlan.Runtime, rolloutPercent: Int?, pause: Bool
    ) -> Release? {
        // A release gone meanwhile is the nil "decision no longer applies", as a stopped guard is.
        guard let i = try? index(of: id), releases[i].hasRunningGuard, releases[i].rolloutPercent == stage else { return nil }
        var r = releases[i]
        r.guardPlan?.runtime = runtime
        if let rolloutPercent { r.rolloutPercent = rolloutPercent }
        if pause { r.state = .paused }
        releases[i] = r
        return r
    }

    /// "Stop guard" (`DELETE /admin/models/ID/guard`): the operator takes the rollout over where
    /// it stands — rollout and state unchanged, `guard.status` `stopped` (SPEC §11.4, as after any
    /// manual change). 404 without a guard; 409 `conflict` when the guard no longer runs, so a
    /// finished guard's verdict is never overwritten.
    public mutating func stopGuard(id: String) throws(CatalogError) -> Release {
        let i = try index(of: id)
        guard releases[i].state != .retired else { throw .retired(releases[i].id) }
        guard let plan = releases[i].guardPlan else { throw CatalogError(.notFound, parameter: "id", "release \(releases[i].id) has no guard") }
        guard releases[i].hasRunningGuard else {
            throw CatalogError(.conflict, parameter: "guard", "the guard of \(releases[i].id) is not running (status \(plan.runtime.status.rawValue))")
        }
        releases[i].guardPlan?.runtime.status = .stopped
        return releases[i]
    }

    public mutating func retire(id: String, now: Timestamp) throws(CatalogError) -> Release {
        try apply(ReleasePatch(state: .retired), to: id, now: now)
    }

    /// Marks the named files of release `i` (its own and/or its variants') as deleted.
    package mutating func markFilesDeleted(index i: Int, files: Set<String>, at now: Timestamp) {
        if files.contains(releases[i].file) { releases[i].fileDeletedAt = now }
        for j in releases[i].variants.indices where files.contains(releases[i].variants[j].file) {
            releases[i].variants[j].fileDeletedAt = now
        }
    }

    /// Records the chunk list of `file` (release `i`'s own or one of its variants'), written by a
    /// backfill (SPEC §14); a file that already has one keeps it.
    package mutating func recordChunks(_ chunks: ChunkListFile, index i: Int, file: String) {
        if releases[i].file == file, releases[i].chunks == nil { releases[i].chunks = chunks }
        for j in releases[i].variants.indices where releases[i].variants[j].file == file && releases[i].variants[j].chunks == nil {
            releases[i].variants[j].chunks = chunks
        }
    }

    /// Records a finished derivation; false (nothing changed) when the file is no longer waiting
    /// for one — collected, removed or derived by another writer meanwhile.
    package mutating func recordTransfer(_ transfer: TransferFiles, for job: DerivationJob) -> Bool {
        guard let i = try? index(of: job.releaseID) else { return false }
        if job.variantName == nil {
            guard releases[i].file == job.file, releases[i].fileDeletedAt == nil, releases[i].transfer == nil else { return false }
            releases[i].transfer = transfer
            return true
        }
        guard let j = releases[i].variants.firstIndex(where: { $0.file == job.file }),
              releases[i].variants[j].fileDeletedAt == nil, releases[i].variants[j].transfer == nil else { return false }
        releases[i].variants[j].transfer = transfer
        return true
    }

    /// Drops the patches whose base file was garbage-collected: no device is offered a way from
    /// a release the catalog no longer serves. Answers the file names to delete.
    package mutating func dropPatchesFromCollectedBases() -> [String] {
        func gone(_ from: String, variant: String?) -> Bool {
            guard let base = release(id: from) else { return true }
            guard let variant else { return base.fileDeletedAt != nil }
            return Self.patchBase(of: base, variant: variant) == nil
        }
        var dropped: [String] = []
        for i in releases.indices {
            if let t = releases[i].transfer {
                let kept = t.patches.filter { !gone($0.from, variant: nil) }
                dropped += t.patches.filter { !kept.contains($0) }.map { TransferFiles.patchName(of: releases[i].file, from: $0.from) }
                releases[i].transfer?.patches = kept
            }
            for j in releases[i].variants.indices {
                let v = releases[i].variants[j]
                guard let t = v.transfer else { continue }
                let kept = t.patches.filter { !gone($0.from, variant: v.name) }
                dropped += t.patches.filter { !kept.contains($0) }.map { TransferFiles.patchName(of: v.file, from: $0.from) }
                releases[i].variants[j].transfer?.patches = kept
            }
        }
        return dropped
    }

    /// Appends a variant to release `id` (SPEC §3.1): 404 unknown release, 409 `retired`,
    /// 409 `id_in_use` for a live name.
    package mutating func addVariant(_ variant: Variant, to id: String) throws(CatalogError) -> Release {
        let i = try index(of: id)
        try releases[i].precheckVariant(named: variant.name)
        releases[i].variants.append(variant)
        return releases[i]
    }

    /// Marks a live variant removed (its file then follows the grace and GC rules).
    package mutating func removeVariant(named name: String, from id: String, now: Timestamp) throws(CatalogError) -> Release {
        let i = try index(of: id)
        guard let j = releases[i].variants.firstIndex(where: { $0.isLive && $0.name == name }) else {
            throw CatalogError(.notFound, parameter: "name", "release \(releases[i].id) has no variant named \(name)")
        }
        releases[i].variants[j].removedAt = now
        return releases[i]
    }
}

/// A change to the mutable fields of a release (`PATCH /admin/models/ID`).
/// `sdkMax` is doubly optional: nil = leave alone, `.some(nil)` = remove the upper bound.
public struct ReleasePatch: Equatable, Sendable {
    public var rolloutPercent: Int?
    public var state: Release.State?
    public var sdkMax: String??
    public var label: String?
    /// A guard to start (SPEC §11.1); it owns the rollout, so it comes without rollout_percent/state.
    public var guardPlan: GuardPlan?
    /// A new base (SPEC §3.2; `null` removes it), only while the release served nobody.
    public var base: ReleaseBase??

    public init(rolloutPercent: Int? = nil, state: Release.State? = nil, sdkMax: String?? = nil, label: String? = nil,
                guardPlan: GuardPlan? = nil, base: ReleaseBase?? = nil) {
        self.rolloutPercent = rolloutPercent
        self.state = state
        self.sdkMax = sdkMax
        self.label = label
        self.guardPlan = guardPlan
        self.base = base
    }

    public var isEmpty: Bool { rolloutPercent == nil && state == nil && sdkMax == nil && label == nil && guardPlan == nil && base == nil }

    /// Parses a PATCH body: a JSON object with any of `rollout_percent`, `state`, `sdk_max`
    /// (string, or null to remove the upper bound), `label`, `guard`, `base` (object, or null).
    /// Unknown keys and wrong types are
    /// `invalid_parameter`; `{}` is an empty patch (the route answers the release unchanged).
    public init(json: [UInt8]) throws(CatalogError) {
        let dto = try decodeStrict(PatchDTO.self, from: json,
                                   otherwise: .invalid("body", "must be a JSON object with rollout_percent, state, sdk_max, label or guard"))
        self.init(rolloutPercent: dto.rolloutPercent, state: dto.state, sdkMax: dto.sdkMax, label: dto.label, guardPlan: dto.guardPlan, base: dto.base)
        if guardPlan != nil, rolloutPercent != nil || state != nil {
            throw .invalid("guard", "cannot be combined with rollout_percent or state: the guard sets the rollout itself")
        }
    }
}

private struct PatchDTO: Decodable {
    package var rolloutPercent: Int?
    package var state: Release.State?
    package var sdkMax: String??
    package var label: String?
    package var guardPlan: GuardPlan?
    package var base: ReleaseBase??

    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: AnyKey.self)
        // Each `try?` below is a type probe turned into the error naming the field.
        for key in c.allKeys {
            switch key.stringValue {
            case "rollout_percent":
                guard let v = try? c.decode(Int.self, forKey: key) else { throw CatalogError.invalid("rollout_percent", "must be an integer 0–100") }
                rolloutPercent = v
            case "state":
                guard let s = try? c.decode(String.self, forKey: key), let v = Release.State(rawValue: s) else {
                    throw CatalogError.invalid("state", "must be active, paused or retired")
                }
                state = v
            case "sdk_max":
                if try c.decodeNil(forKey: key) {
                    sdkMax = .some(nil)
                } else {
                    guard let v = try? c.decode(String.self, forKey: key) else { throw CatalogError.invalid("sdk_max", "must be a version string or null") }
                    sdkMax = .some(v)
                }
            case "label":
                guard let v = try? c.decode(String.self, forKey: key) else { throw CatalogError.invalid("label", "must be a string") }
                label = v
            case "base":
                if try c.decodeNil(forKey: key) {
                    base = .some(nil)
                } else {
                    do { base = .some(try c.decode(ReleaseBase.self, forKey: key)) } catch let e as InvalidInput {
                        throw CatalogError.invalid(e.parameter, e.message)
                    } catch {
                        throw CatalogError.invalid("base", "must be {\"channel\":…,\"sha256\":…} or null")
                    }
                }
            case "guard":
                let document: GuardPlan.Document
                do {
                    document = try c.decode(GuardPlan.Document.self, forKey: key)
                } catch let e as GuardPlanError {
                    throw CatalogError.invalid(e.field, e.message)
                } catch {
                    throw CatalogError.invalid("guard", "must be a JSON object")
                }
                guardPlan = try GuardPlan.operatorInput(document)
            default:
                throw CatalogError.invalid(key.stringValue, "unknown field; allowed: rollout_percent, state, sdk_max, label, guard, base")
            }
        }
    }
}

extension CatalogError {
    /// 409 `retired`: retired is final (SPEC §7.1).
    package static func retired(_ id: String) -> CatalogError {
        CatalogError(.retired, parameter: "state", "release \(id) is retired and cannot change")
    }

    /// 409 `id_in_use`: ids are never reused (SPEC §3).
    public static func idInUse(_ id: String) -> CatalogError {
        CatalogError(.idInUse, parameter: "id", "release id \(id) is already in the catalog")
    }

    /// 409 `experiment_running`: `other`'s guard already judges these clients.
    public static func experimentRunning(_ other: Release) -> CatalogError {
        CatalogError(.experimentRunning, parameter: "guard",
                     "release \(other.id) has a running guard on channel \(other.channel) for overlapping SDK versions")
    }
}

extension GuardPlan {
    /// An operator's guard (publish parameter or PATCH body), its errors as `invalid_parameter`
    /// naming the field (`guard.stages[2]`).
    package static func operatorInput(_ document: Document) throws(CatalogError) -> GuardPlan {
        do { return try GuardPlan(operatorInput: document) } catch { throw .invalid(error.field, error.message) }
    }

    /// The plan as it begins: collecting, at its first stage since `now`.
    package func started(at now: Timestamp) -> GuardPlan {
        var plan = self
        plan.runtime = Runtime(status: .collecting, startedAt: now.millisecondsSinceEpoch, stageStartedAt: now.millisecondsSinceEpoch)
        return plan
    }

    public static func operatorInput(json text: String) throws(CatalogError) -> GuardPlan {
        do { return try GuardPlan(json: Array(text.utf8)) } catch { throw .invalid(error.field, error.message) }
    }
}

/// Decodes a JSON body whose DTO throws `CatalogError` naming the bad key; any other decoding
/// failure (not JSON, not an object) is `otherwise`.
package func decodeStrict<T: Decodable>(_ type: T.Type, from json: [UInt8], otherwise: CatalogError) throws(CatalogError) -> T {
    do {
        return try JSONDecoder().decode(type, from: Data(json))
    } catch let e as CatalogError {
        throw e
    } catch let e as InvalidInput {
        throw CatalogError(e)
    } catch {
        throw otherwise
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
    public internal(set) var catalogVersion: Int64
    /// The base of every `url` derived from this catalog (SPEC §9.1 "the catalog's base URL"):
    /// recorded by the first change, then changed only by `CatalogStore.setPublicBaseURL`, so the
    /// derived file never depends on which writer wrote last. nil until recorded.
    public internal(set) var publicBaseURL: String?
    /// Lowercased id → index and file name → index: O(1) lookups for the per-request routes.
    private var byID: [String: Int] = [:]
    private var byFile: [String: Int] = [:]

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
        let sorted = releases.sorted { $0.seq < $1.seq }
        var ids = Set<String>()
        var lastSeq: Int64 = 0
        for r in sorted {
            guard ids.insert(r.id.lowercased()).inserted else {
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
        for (i, r) in sorted.enumerated() {
            byID[r.id.lowercased()] = i
            byFile[r.file] = i
        }
    }

    /// What a catalog may record as its base: `http(s)://` and no spaces or control characters
    /// (writers pass values already checked by the configuration's stricter rule).
    public static func isBaseURL(_ url: String) -> Bool {
        let lower = url.lowercased()
        guard let scheme = ["http://", "https://"].first(where: { lower.hasPrefix($0) }) else { return false }
        return url.utf8.count > scheme.utf8.count && url.utf8.allSatisfy { $0 > 0x20 && $0 != 0x7F }
    }

    /// Ids compare case-insensitively: they name files, and two ids differing only in case
    /// would be one file on a case-insensitive volume.
    public func release(id: String) -> Release? {
        byID[id.lowercased()].map { releases[$0] }
    }

    /// The release whose file is `name` (`<id>.<ext>`), for `GET /models/<file>` (any state,
    /// until garbage-collected).
    public func release(file name: String) -> Release? {
        guard let i = byFile[name], releases[i].fileDeletedAt == nil else { return nil }
        return releases[i]
    }

    public func select(sdk: SDKVersion, channel: String = Release.defaultChannel, clientID: String?) -> ReleaseSelector.Selection {
        ReleaseSelector.select(from: releases, sdk: sdk, channel: channel, clientID: clientID)
    }

    // MARK: - Changes (pure; CatalogStore applies them under the lock)

    /// Appends a release built by `make(seq)`; the id must be new (SPEC §3: ids are never reused).
    @discardableResult
    mutating func append(_ make: (Int64) throws(CatalogError) -> Release) throws(CatalogError) -> Release {
        let release = try make(nextSeq)
        guard self.release(id: release.id) == nil else {
            throw CatalogError(.idInUse, parameter: "id", "release id \(release.id) is already in the catalog")
        }
        byID[release.id.lowercased()] = releases.count
        byFile[release.file] = releases.count
        releases.append(release)
        nextSeq += 1
        return release
    }

    func index(of id: String) throws(CatalogError) -> Int {
        if let i = byID[id.lowercased()] { return i }
        throw CatalogError(.notFound, parameter: "id", "no release with id \(id)")
    }

    /// Applies a patch; a retired release cannot change (409 `retired`).
    public mutating func apply(_ patch: ReleasePatch, to id: String, now: Timestamp) throws(CatalogError) -> Release {
        let i = try index(of: id)
        var r = releases[i]
        guard r.state != .retired else { throw CatalogError(.retired, parameter: "state", "release \(r.id) is retired and cannot change") }
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
        releases[i] = r
        return r
    }

    public mutating func retire(id: String, now: Timestamp) throws(CatalogError) -> Release {
        try apply(ReleasePatch(state: .retired), to: id, now: now)
    }

    mutating func markFileDeleted(index i: Int, at now: Timestamp) {
        releases[i].fileDeletedAt = now
    }
}

/// A change to the mutable fields of a release (`PATCH /admin/models/ID`).
/// `sdkMax` is doubly optional: nil = leave alone, `.some(nil)` = remove the upper bound.
public struct ReleasePatch: Equatable, Sendable {
    public var rolloutPercent: Int?
    public var state: Release.State?
    public var sdkMax: String??
    public var label: String?

    public init(rolloutPercent: Int? = nil, state: Release.State? = nil, sdkMax: String?? = nil, label: String? = nil) {
        self.rolloutPercent = rolloutPercent
        self.state = state
        self.sdkMax = sdkMax
        self.label = label
    }

    public var isEmpty: Bool { rolloutPercent == nil && state == nil && sdkMax == nil && label == nil }

    /// Parses a PATCH body: a JSON object with any of `rollout_percent`, `state`, `sdk_max`
    /// (string or null), `label`. Unknown keys and wrong types are `invalid_parameter`.
    public init(json: [UInt8]) throws(CatalogError) {
        let dto: PatchDTO
        do {
            dto = try JSONDecoder().decode(PatchDTO.self, from: Data(json))
        } catch let e as CatalogError {
            throw e
        } catch {
            throw .invalid("body", "must be a JSON object with rollout_percent, state, sdk_max or label")
        }
        self.init(rolloutPercent: dto.rolloutPercent, state: dto.state, sdkMax: dto.sdkMax, label: dto.label)
        if isEmpty { throw .invalid("body", "nothing to change: give rollout_percent, state, sdk_max or label") }
    }
}

private struct PatchDTO: Decodable {
    var rolloutPercent: Int?
    var state: Release.State?
    var sdkMax: String??
    var label: String?

    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
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
            default:
                throw CatalogError.invalid(key.stringValue, "unknown field; allowed: rollout_percent, state, sdk_max, label")
            }
        }
    }
}

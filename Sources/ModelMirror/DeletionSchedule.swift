import ModelCatalog

/// When a garbage-collected file may leave the bucket (SPEC §9.1): only once the JSON that stopped
/// naming it has been in place for longer than its max-age, so no cached JSON still sends a client
/// to it. The times are kept in the mirror's journal between runs.
public struct DeletionSchedule: Sendable, Equatable, Codable {
    /// Key → when (Unix seconds) a pass first found it in the bucket with a JSON in place that
    /// no longer names it.
    public var pending: [String: Int64] = [:]
    /// Keys already deleted (or found absent): never looked at again.
    public var done: Set<String> = []
    /// Snapshot keys (details and rules) a pass put or found in the bucket: once one is no longer
    /// local (pruned `retired_grace_days` after it stopped being current) it is collected like a
    /// garbage-collected file (SPEC §9.2).
    public var snapshots: Set<String> = []

    public init() {}

    enum CodingKeys: String, CodingKey { case pending, done, snapshots }

    /// Journals written before rules snapshots existed have no `snapshots`.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        pending = try c.decode([String: Int64].self, forKey: .pending)
        done = try c.decode(Set<String>.self, forKey: .done)
        snapshots = try c.decodeIfPresent(Set<String>.self, forKey: .snapshots) ?? []
    }

    /// Records the snapshots `desired` holds and answers the recorded ones it no longer holds
    /// (pruned locally): they leave the bucket through the same wait as collected files.
    public mutating func supersededSnapshots(desired: [MirrorObject]) -> [String] {
        let current = Set(desired.filter { $0.kind == .snapshot }.map(\.key))
        let gone = snapshots.subtracting(current)
        snapshots = current
        return gone.sorted()
    }

    /// The bucket keys of every garbage-collected file: releases' own and variants', each with
    /// its chunk list, pack and patches when it had them (SPEC §14, §16).
    public static func collectedKeys(catalog: Catalog, prefix: String) -> [String] {
        let base = prefix.isEmpty ? "models/" : prefix + "/models/"
        var keys: [String] = []
        for release in catalog.releases {
            if release.fileDeletedAt != nil { keys += [release.file] + release.derivedFiles.map(\.name) }
            for v in release.variants where v.fileDeletedAt != nil { keys += [v.file] + v.derivedFiles.map(\.name) }
        }
        return keys.map { base + $0 }
    }

    /// Pending keys whose wait is over at `now`.
    public func due(now: Int64, maxAge: Int) -> [String] {
        pending.filter { now - $0.value > Int64(maxAge) }.map(\.key).sorted()
    }

    /// Seconds until the next pending key is due, nil when none is pending.
    public func secondsUntilNextDue(now: Int64, maxAge: Int) -> Int64? {
        pending.values.map { max(0, $0 + Int64(maxAge) + 1 - now) }.min()
    }
}

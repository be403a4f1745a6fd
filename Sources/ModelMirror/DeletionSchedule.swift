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

    public init() {}

    /// The bucket keys of every garbage-collected file: releases' own and variants', each with
    /// its chunk list when it had one (SPEC §14).
    public static func collectedKeys(catalog: Catalog, prefix: String) -> [String] {
        let base = prefix.isEmpty ? "models/" : prefix + "/models/"
        func keys(_ file: String, _ chunks: ChunkListFile?) -> [String] { [file] + (chunks != nil ? [ChunkListFile.name(of: file)] : []) }
        return catalog.releases.flatMap { release in
            (release.fileDeletedAt != nil ? keys(release.file, release.chunks) : [])
                + release.variants.filter { $0.fileDeletedAt != nil }.flatMap { keys($0.file, $0.chunks) }
        }.map { base + $0 }
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

#if canImport(Glibc)
import Glibc
#endif

/// How long superseded immutable snapshots stay (SPEC §12 `details/`, §9.2 `rules/<channel>/`):
/// a snapshot `<N>.json` is deleted once the one after it has existed longer than the grace
/// period, so clients and CDNs holding an older pointer still find its file; the current one
/// never is. Best effort: a failure leaves a file for the next run.
enum SnapshotRetention {
    static func prune(directory: String, current: Int64, graceDays: Int, now: Int64) {
        let versions = FileIO.entries(of: directory).compactMap { name -> Int64? in
            guard name.hasSuffix(".json") else { return nil }
            return Int64(name.dropLast(5))
        }.sorted()
        let grace = Int64(graceDays) * 86_400
        let path = { (version: Int64) in "\(directory)/\(version).json" }
        for (older, newer) in zip(versions, versions.dropFirst()) where older != current {
            var st = stat()
            guard stat(path(newer), &st) == 0 else { continue }
            if now - Int64(st.st_mtim.tv_sec) > grace { unlink(path(older)) }
        }
    }
}

import BinaryText
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Leftovers of writers killed between creating a temp file and renaming it (SPEC §2's atomic
/// replace, uploads): nothing else ever removes them. A live writer's temp is never touched:
/// only files not modified for `staleTempAge` go, far longer than any writer holds one (an
/// atomic replace writes a few MiB at most and renames at once; an upload writes continuously
/// and a stalled one is cut by the body timeout), and age works where a pid does not — in a
/// directory shared by replicas on other hosts. See docs/decisions/durable-files.md.
extension DurableFile {
    /// One hour: margin enough for a slow disk, a paused process and clock skew between hosts
    /// sharing a directory.
    public static let staleTempAge: Int64 = 3_600

    /// `replace`'s temp for the file `name`: `.<name>.tmp-<pid>-<12 hex>`, a dot file (nothing
    /// that lists a directory by suffix takes it for data), unique across concurrent writers.
    static func tempName(for name: String) -> String { ".\(name).tmp-\(getpid())-\(Hex.random(bytes: 6))" }

    /// Whether `name` has the shape `tempName` gives.
    public static func isTempName(_ name: String) -> Bool {
        guard name.hasPrefix("."), let dash = name.lastIndex(of: "-") else { return false }
        let random = name[name.index(after: dash)...]
        guard random.count == 12, random.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else { return false }
        let head = name[..<dash]
        guard let pidDash = head.lastIndex(of: "-") else { return false }
        let pid = head[head.index(after: pidDash)...]
        let target = head[..<pidDash]   // ".<name>.tmp"
        return !pid.isEmpty && pid.utf8.allSatisfy { (48...57).contains($0) } && target.hasSuffix(".tmp") && target.count >= ".x.tmp".count
    }

    /// Removes the regular files of `directory` that `isTemp` accepts (by default `replace`'s
    /// temps) and whose last modification is more than `age` seconds before `now` (seconds since
    /// the epoch). Answers the names removed; a directory that does not exist has none.
    @discardableResult
    public static func removeStaleTemps(in directory: String, olderThan age: Int64 = staleTempAge, now: Int64,
                                        isTemp: (String) -> Bool = isTempName) -> [String] {
        var removed: [String] = []
        for name in entries(of: directory) ?? [] where isTemp(name) {
            let path = directory + "/" + name
            var info = stat()
            guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, modified(info) < now - age else { continue }
            if unlink(path) == 0 { removed.append(name) }
        }
        return removed
    }

    private static func modified(_ info: stat) -> Int64 {
        #if canImport(Darwin)
        Int64(info.st_mtimespec.tv_sec)
        #else
        Int64(info.st_mtim.tv_sec)
        #endif
    }
}

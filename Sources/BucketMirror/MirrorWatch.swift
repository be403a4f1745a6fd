import Foundation
import ModelMirror
import ObjectStorage

/// `mirror --watch`: mirrors, then waits for the catalog or the JSON pointer (re-signed) or the
/// snapshots to change, or for a pending deletion to fall due, and mirrors again; a failed pass
/// is retried with backoff and never stops the loop (SPEC §9.1). Polls `stat` every half second
/// like the catalog watcher (§8), which also sees changes made by other hosts on a shared volume.
public struct MirrorWatch {
    let modelsDir: String
    let retry = RetryPolicy(maxAttempts: .max, baseDelay: .seconds(1), maxDelay: .seconds(60))

    public init(modelsDir: String) { self.modelsDir = modelsDir }

    /// `pass` returns the seconds until a pending deletion falls due, so the loop wakes for it;
    /// `failed` hears each failed pass and the wait before the next.
    public func run(pass: () throws(MirrorFailure) -> Int64?, failed: (MirrorFailure, Duration) -> Void) -> Never {
        var failures = 0
        while true {
            let before = signature()
            var wakeAt: ContinuousClock.Instant?
            do {
                wakeAt = try pass().map { .now + .seconds($0) }
                failures = 0
            } catch {
                failures += 1
                let wait = retry.delay(afterAttempt: failures, random: Double.random(in: 0.5..<1))
                failed(error, wait)
                Thread.sleep(forTimeInterval: Double(wait.components.seconds) + Double(wait.components.attoseconds) / 1e18)
                continue
            }
            // The signature is taken before the pass, so a change during it triggers another.
            while signature() == before, wakeAt.map({ ContinuousClock.now < $0 }) ?? true { Thread.sleep(forTimeInterval: 0.5) }
        }
    }

    /// Identity (inode, size, mtime) of every file the mirror reads besides the model files,
    /// which are immutable and named by the catalog: the catalog and every pointer and snapshot
    /// (so a re-signed rules pointer is mirrored within the poll, SPEC §9.2).
    func signature() -> [String] {
        // A directory that cannot be listed is left out here only: the pass it triggers reports it.
        let names = (try? MirrorObject.jsonNames(list: modelsSubdirectoryLister(modelsDir))) ?? []
        return (["catalog.json"] + names).map { name in
            var info = stat()
            guard stat(modelsDir + "/" + name, &info) == 0 else { return name + ":-" }
            return "\(name):\(info.st_ino):\(info.st_size):\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
        }
    }
}

import CLinuxShims
import Synchronization

/// Gives the pages a catalog reload freed back to the system (glibc keeps freed heap pages:
/// at 10,000 releases the decoded file's tree and the previous version are tens of MiB, SPEC
/// §17.1's RSS budget). Asked for by a reload, done at the watcher's next poll: by then the
/// reload's own temporaries are gone (the reload's caller still held them when it returned).
/// The version a reload replaced is handed over too and freed there, first: freeing 10,000
/// releases takes milliseconds that belong to neither the reload nor a request.
final class FreedMemory: Sendable {
    private let due = Atomic<Bool>(false)
    private let replaced = Mutex<[ServedCatalog]>([])

    func releaseSoon(replaced old: ServedCatalog? = nil) {
        if let old { replaced.withLock { $0.append(old) } }
        due.store(true, ordering: .relaxed)
    }

    func releaseIfDue() {
        guard due.exchange(false, ordering: .relaxed) else { return }
        let old = replaced.withLock { list in defer { list = [] }; return list }
        withExtendedLifetime(old) {}   // the last references: freed here, before the trim
        modeld_release_free_memory()
    }
}

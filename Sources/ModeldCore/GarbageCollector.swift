import Logging
import ModelCatalog
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Deletes retired files once their grace period is over (SPEC §7.1), at start-up and hourly.
final class GarbageCollector: Sendable {
    private let store: CatalogStore
    private let graceDays: Int
    private let watcher: CatalogWatcher
    private let stopping = Mutex(false)
    private let thread = Mutex<pthread_t?>(nil)
    private let wake: (read: Int32, write: Int32)

    init(store: CatalogStore, graceDays: Int, watcher: CatalogWatcher) {
        self.store = store
        self.graceDays = graceDays
        self.watcher = watcher
        var fds: [Int32] = [-1, -1]
        precondition(pipe(&fds) == 0)
        wake = (fds[0], fds[1])
    }

    deinit {
        close(wake.read)
        close(wake.write)
    }

    func start() {
        let box = Unmanaged.passRetained(self).toOpaque()
        var tid = pthread_t()
        guard pthread_create(&tid, nil, { raw in
            Unmanaged<GarbageCollector>.fromOpaque(raw!).takeRetainedValue().loop()
            return nil
        }, box) == 0 else {
            Unmanaged<GarbageCollector>.fromOpaque(box).release()
            return
        }
        thread.withLock { $0 = tid }
    }

    func stop() {
        stopping.withLock { $0 = true }
        var one: UInt8 = 1
        _ = write(wake.write, &one, 1)
        if let t = thread.withLock({ $0 }) { pthread_join(t, nil) }
    }

    private func loop() {
        let log = Logger(label: "modeld.gc")
        while !stopping.withLock({ $0 }) {
            do throws(CatalogError) {
                let deleted = try store.collectGarbage(graceDays: graceDays)
                if !deleted.isEmpty {
                    log.info("deleted \(deleted.count) retired file(s) past their \(graceDays)-day grace period")
                    watcher.reloadNow()
                }
            } catch {
                log.error("garbage collection failed: \(error)")
            }
            var p = pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)
            _ = poll(&p, 1, 3_600_000)   // an hour, or until stop()
        }
    }
}

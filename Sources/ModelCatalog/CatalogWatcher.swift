#if canImport(Glibc)
import Glibc
#endif
import DurableFiles
import Synchronization

/// Reloads `catalog.json` when it changes (SPEC §8: within 2 s, and on SIGHUP). Polls `stat`
/// rather than inotify because inotify misses changes made by other hosts on shared volumes
/// (§9). A corrupt catalog is reported through `onError` and the previous one stays in force.
///
/// Callbacks run on the watcher thread (or the `reloadNow` caller) one at a time and in order;
/// they must not call back into the watcher.
public final class CatalogWatcher: Sendable {
    private struct State {
        var signature: FileStamp?        // nil until the first load
        var thread: pthread_t?
        var stopping = false
    }

    public let store: CatalogStore
    public let intervalMilliseconds: Int32
    private let onChange: @Sendable (Catalog) -> Void
    private let onError: @Sendable (CatalogError) -> Void
    /// After `onChange` of a change the thread's poll found (another process's): how long the
    /// read, decode and `onChange` took, for the log line an operator times reloads by.
    private let onPolledChange: @Sendable (Catalog, Duration) -> Void
    /// After every poll of the thread: an observable heartbeat (`modeld_catalog_polls_total`).
    private let onPoll: @Sendable () -> Void
    private let state = Mutex(State())
    private let reloadLock = Mutex(())   // serialises reloads so callbacks arrive in order
    private let wakeRead: Int32
    private let wakeWrite: Int32

    public init(
        store: CatalogStore, intervalMilliseconds: Int32 = 500,
        onPoll: @escaping @Sendable () -> Void = {},
        onChange: @escaping @Sendable (Catalog) -> Void,
        onError: @escaping @Sendable (CatalogError) -> Void,
        onPolledChange: @escaping @Sendable (Catalog, Duration) -> Void = { _, _ in }
    ) {
        self.store = store
        self.intervalMilliseconds = max(10, intervalMilliseconds)
        self.onChange = onChange
        self.onError = onError
        self.onPolledChange = onPolledChange
        self.onPoll = onPoll
        var fds: [Int32] = [-1, -1]
        if pipe(&fds) == 0 {
            for fd in fds {
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
                _ = fcntl(fd, F_SETFL, O_NONBLOCK)
            }
        } else {
            fds = [-1, -1]  // poll() then just sleeps; stop() waits at most one interval
        }
        wakeRead = fds[0]
        wakeWrite = fds[1]
    }

    deinit {
        if wakeRead >= 0 { close(wakeRead) }
        if wakeWrite >= 0 { close(wakeWrite) }
    }

    /// Loads the catalog for start-up and remembers its version, so the watcher reports only
    /// later changes. Without it the first poll delivers the current catalog.
    public func loadInitial() throws(CatalogError) -> Catalog {
        try reloadLock.withLock { _ throws(CatalogError) -> Catalog in
            let sig = signature()
            let catalog = try store.load()
            state.withLock { $0.signature = sig }
            return catalog
        }
    }

    /// Starts the polling thread (idempotent).
    public func start() {
        let box = Unmanaged.passRetained(self).toOpaque()
        state.withLock { s in
            guard s.thread == nil, !s.stopping else {
                Unmanaged<CatalogWatcher>.fromOpaque(box).release()
                return
            }
            var tid = pthread_t()
            let rc = pthread_create(&tid, nil, { raw in
                let watcher = Unmanaged<CatalogWatcher>.fromOpaque(raw!).takeRetainedValue()
                watcher.run()
                return nil
            }, box)
            if rc == 0 { s.thread = tid } else { Unmanaged<CatalogWatcher>.fromOpaque(box).release() }
        }
    }

    /// Stops and joins the thread; returns within one poll's work (the wait is interrupted).
    public func stop() {
        let thread: pthread_t? = state.withLock { s in
            s.stopping = true
            defer { s.thread = nil }
            return s.thread
        }
        guard let thread else { return }
        var one: UInt8 = 1
        _ = write(wakeWrite, &one, 1)
        pthread_join(thread, nil)
    }

    /// Re-reads the file now, changed or not (SIGHUP). Delivers through the callbacks and
    /// also returns the outcome to the caller.
    @discardableResult
    public func reloadNow() -> Result<Catalog, CatalogError> {
        reload(force: true, fromDisk: true)!
    }

    /// After a change made through `store` in this process: delivers the catalog it wrote
    /// without reading the file back (SPEC §17.1), or what is on disk if another writer has
    /// replaced it since.
    @discardableResult
    public func reloadAfterChange() -> Result<Catalog, CatalogError> {
        reload(force: true, fromDisk: false)!
    }

    /// One poll step (also what the thread runs): reloads when the file's signature changed.
    @discardableResult
    func poll() -> Result<Catalog, CatalogError>? {
        let sig = signature()
        guard state.withLock({ $0.signature }) != sig else { return nil }
        return reload(force: false, fromDisk: false)
    }

    /// nil when not forced and a concurrent reload already took this version.
    private func reload(force: Bool, fromDisk: Bool) -> Result<Catalog, CatalogError>? {
        reloadLock.withLock { _ in
            // Stat before reading: if the file changes mid-read the next poll sees a new signature.
            let sig = signature()
            if !force, let last = state.withLock({ $0.signature }), last == sig {
                return nil
            }
            state.withLock { $0.signature = sig }
            let start = ContinuousClock.now
            do throws(CatalogError) {
                let catalog = try fromDisk ? store.loadFromDisk() : store.load()
                onChange(catalog)
                if !force { onPolledChange(catalog, ContinuousClock.now - start) }
                return .success(catalog)
            } catch {
                onError(error)  // once per bad version: the signature is recorded
                return .failure(error)
            }
        }
    }

    private func run() {
        var pfd = pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)
        while !state.withLock({ $0.stopping }) {
            poll()
            onPoll()
            pfd.revents = 0
            _ = Glibc.poll(&pfd, 1, intervalMilliseconds)
        }
    }

    func signature() -> FileStamp { FileStamp(of: store.catalogPath) }
}

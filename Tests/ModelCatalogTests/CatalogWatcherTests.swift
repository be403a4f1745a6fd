#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import Testing
@testable import ModelCatalog

@Suite struct CatalogWatcherTests {
    final class Inbox: Sendable {
        let catalogs = Mutex<[Catalog]>([])
        let errors = Mutex<[CatalogError]>([])
    }

    func make(_ dir: TempDir, inbox: Inbox, interval: Int32 = 20) -> CatalogWatcher {
        CatalogWatcher(
            store: CatalogStore(directory: dir.path, publicBaseURL: "http://h"), intervalMilliseconds: interval,
            onChange: { c in inbox.catalogs.withLock { $0.append(c) } },
            onError: { e in inbox.errors.withLock { $0.append(e) } })
    }

    @Test func watcher_seesExternalChangeAndSurvivesCorruptWrite_SPEC8() async throws {
        let dir = TempDir(); defer { dir.remove() }
        let inbox = Inbox()
        let watcher = make(dir, inbox: inbox)
        #expect(try watcher.loadInitial() == .empty)
        #expect(watcher.poll() == nil)  // nothing changed since the initial load

        let one = try Catalog(releases: [rel(1)])
        try FileIO.atomicReplace(dir.path + "/catalog.json", with: one.encoded())
        #expect(try watcher.poll()?.get() == one)

        dir.write("catalog.json", "{ torn")
        if case .success = watcher.poll() { Issue.record("corrupt catalog accepted") }
        #expect(watcher.poll() == nil)  // reported once per bad version
        #expect(inbox.errors.withLock { $0.map(\.code) } == [.corruptCatalog])

        let two = try Catalog(releases: [rel(1), rel(2)])
        try FileIO.atomicReplace(dir.path + "/catalog.json", with: two.encoded())
        // And through the real thread: delivered within a few intervals.
        watcher.start()
        defer { watcher.stop() }
        for _ in 0..<200 where inbox.catalogs.withLock({ $0.last }) != two { try await Task.sleep(for: .milliseconds(10)) }
        #expect(inbox.catalogs.withLock { $0 } == [one, two])
    }

    @Test func watcher_reloadNowForcesReload_SPEC8() throws {
        let dir = TempDir(); defer { dir.remove() }
        let inbox = Inbox()
        let watcher = make(dir, inbox: inbox)
        _ = try watcher.loadInitial()
        #expect(try watcher.reloadNow().get() == .empty)
        #expect(inbox.catalogs.withLock { $0.count } == 1)
    }

    @Test func watcher_stopsPromptly() throws {
        let dir = TempDir(); defer { dir.remove() }
        let watcher = make(dir, inbox: Inbox(), interval: 60_000)
        watcher.start()
        watcher.start()
        var a = timespec(), b = timespec()
        clock_gettime(CLOCK_MONOTONIC, &a)
        watcher.stop()
        watcher.stop()
        clock_gettime(CLOCK_MONOTONIC, &b)
        #expect(b.tv_sec - a.tv_sec < 5)  // woken through the pipe, not after the 60 s interval
    }
}

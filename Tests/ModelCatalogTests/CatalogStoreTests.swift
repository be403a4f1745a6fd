#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import ModelCatalog

@Suite struct CatalogStoreTests {
    static let base = "http://127.0.0.1:8080"
    // python3 -c 'import hashlib; print(hashlib.sha256(b"hello model").hexdigest())'
    static let helloSHA = "2b2eb6f423932d62cafb015658d50a64d33e96e66fc9ec182172df817971e6f4"

    func store(_ dir: TempDir) -> CatalogStore { CatalogStore(directory: dir.path + "/models", publicBaseURL: Self.base) }

    func upload(_ store: CatalogStore, _ text: String, instance: String = "test") throws -> FinishedUpload {
        let w = try UploadWriter(modelsDirectory: store.directory, instance: instance)
        try w.write(Array(text.utf8))
        return try w.finish(expectedSHA256: nil)
    }

    @Test func load_absentDirectoryIsEmptyCatalog_SPEC8() throws {
        let dir = TempDir(); defer { dir.remove() }
        #expect(try store(dir).load() == .empty)
    }

    @Test func catalog_roundTripsThroughFile_SPEC2() throws {
        var r3 = rel(3, max: "4.0", percent: 10, state: .retired, label: "a \"quoted\" \\ label ✓")
        r3.retiredAt = t0
        r3.fileDeletedAt = t0.adding(days: 8)
        let catalog = try Catalog(releases: [rel(1), rel(2, channel: "beta", state: .paused), r3], nextSeq: 9)
        let decoded = try Catalog(decoding: catalog.encoded())
        #expect(decoded == catalog)
        #expect(decoded.nextSeq == 9)
    }

    @Test(arguments: [
        ("not json", "{"),
        ("wrong format", #"{"format":2,"releases":[]}"#),
        ("missing releases", #"{"format":1}"#),
        ("bad sdk", #"{"format":1,"releases":[{"id":"00000000-0000-4000-8000-000000000001","seq":1,"ext":"onnx","sha256":"\#(sha)","size":1,"sdk_min":"x","channel":"stable","rollout_percent":100,"state":"active","published_at":"2026-11-21T10:00:00.000Z"}]}"#),
        ("bad state", #"{"format":1,"releases":[{"id":"00000000-0000-4000-8000-000000000001","seq":1,"ext":"onnx","sha256":"\#(sha)","size":1,"sdk_min":"1","channel":"stable","rollout_percent":100,"state":"gone","published_at":"2026-11-21T10:00:00.000Z"}]}"#),
        ("file mismatch", #"{"format":1,"releases":[{"id":"00000000-0000-4000-8000-000000000001","seq":1,"file":"x.onnx","ext":"onnx","sha256":"\#(sha)","size":1,"sdk_min":"1","channel":"stable","rollout_percent":100,"state":"active","published_at":"2026-11-21T10:00:00.000Z"}]}"#),
        ("negative catalog_version", #"{"format":1,"catalog_version":-1,"releases":[]}"#),
        ("fractional catalog_version", #"{"format":1,"catalog_version":1.5,"releases":[]}"#),
        ("next_seq too low", #"{"format":1,"next_seq":1,"releases":[{"id":"00000000-0000-4000-8000-000000000001","seq":1,"ext":"onnx","sha256":"\#(sha)","size":1,"sdk_min":"1","channel":"stable","rollout_percent":100,"state":"active","published_at":"2026-11-21T10:00:00.000Z"}]}"#),
        ("truncated", #"{"format":1,"next_seq":2,"releases":[{"id":"00000000-0000-4000-8000-0000"#),
    ])
    func load_refusesCorruptCatalog_SPEC8(name: String, text: String) throws {
        let dir = TempDir(); defer { dir.remove() }
        mkdir(dir.path + "/models", 0o755)
        dir.write("models/catalog.json", text)
        do { _ = try store(dir).load(); Issue.record("accepted \(name)") } catch {
            #expect(error.code == .corruptCatalog, "\(name): \(error)")
        }
    }

    @Test func load_refusesDuplicateIDs_SPEC3() throws {
        let a = rel(1)
        let b = try Release(id: a.id.uppercased(), seq: 2, ext: "onnx", sha256: sha, size: 1, sdkMin: "1", publishedAt: t0)
        #expect(throws: CatalogError.self) { try Catalog(releases: [a, b]) }
    }

    @Test func shippedDemoModel_isConsistent_SPEC8() throws {
        // The repository's models/: catalog parses, files match their sha/size, derived file is current.
        var path = #filePath
        for _ in 0..<3 { path = String(path[..<path.lastIndex(of: "/")!]) }
        let store = CatalogStore(directory: path + "/models", publicBaseURL: Self.base)
        let catalog = try store.load()
        let r = try #require(catalog.releases.first)
        #expect(catalog.releases.count == 1)
        #expect(r.sdkMin == "1.0" && r.channel == "stable" && r.label == "demo" && r.rolloutPercent == 100 && r.ext == "onnx")
        let bytes = try #require(try FileIO.read(store.path(of: r)))
        #expect(Int64(bytes.count) == r.size && bytes.count < 100_000)
        let scratch = TempDir(); defer { scratch.remove() }
        let w = try UploadWriter(modelsDirectory: scratch.path, instance: "demo-check")
        try w.write(bytes)
        #expect(try w.finish().sha256 == r.sha256)
        #expect(try FileIO.read(store.latestDetailsPath) == catalog.latestDetailsJSON(publicBaseURL: Self.base))
        // ONNX files are protobufs whose first field is ir_version (field 1, varint): 0x08.
        #expect(bytes.first == 0x08)
    }

    @Test func publish_writesFileThenCatalogAndDerived_SPEC7_1() throws {
        let dir = TempDir(); defer { dir.remove() }
        let s = store(dir)
        let u = try upload(s, "hello model")
        let r = try s.publish(u, PublishRequest(sdkMin: "2.3", sdkMax: "3", label: "v1", ext: "onnx"), now: t0)
        #expect(r.seq == 1 && r.size == 11 && r.publishedAt == t0)
        #expect(dir.read("models/\(r.file)") == "hello model")
        #expect(dir.entries("models/.tmp") == [])
        #expect(try s.load().releases == [r.value])
        #expect(dir.read("models/latest_model_details.json")
            == "{\"2.3.0\":\(String(decoding: r.value.documentJSON(publicBaseURL: Self.base), as: UTF8.self)),\"3.0.0\":null}\n")
    }

    @Test func publish_existingIDIsRefusedAndNothingKept_SPEC7_1() throws {
        let dir = TempDir(); defer { dir.remove() }
        let s = store(dir)
        let id = "80a2c3d1-82d1-4cf8-9d35-d7f257c4c31e"
        let first = try s.publish(try upload(s, "one"), PublishRequest(sdkMin: "1", ext: "onnx", id: id))
        #expect(first.id == id)
        do {
            _ = try s.publish(try upload(s, "two"), PublishRequest(sdkMin: "1", ext: "bin", id: id.uppercased()))
            Issue.record("accepted a reused id")
        } catch {
            #expect((error as? CatalogError)?.code == .idInUse)
        }
        #expect(dir.entries("models/.tmp") == [])
        #expect(!dir.exists("models/\(id.uppercased()).bin"))
        #expect(dir.read("models/\(id).onnx") == "one")
    }

    @Test func publish_seqNeverReused_SPEC3() throws {
        let dir = TempDir(); defer { dir.remove() }
        let s = store(dir)
        _ = try s.publish(try upload(s, "a"), PublishRequest(sdkMin: "1", ext: "onnx"))
        let b = try s.publish(try upload(s, "b"), PublishRequest(sdkMin: "1", ext: "onnx"))
        // Drop the last entry by hand (an operator edit): its seq must still not come back.
        let kept = try s.load().releases.filter { $0.seq != b.seq }
        let edited = try Catalog(releases: kept, nextSeq: b.seq + 1)
        try FileIO.atomicReplace(s.catalogPath, with: edited.encoded())
        let c = try s.publish(try upload(s, "c"), PublishRequest(sdkMin: "1", ext: "onnx"))
        #expect(c.seq == b.seq + 1)
    }

    @Test func publishFile_streamsLocalFile_SPEC7_1() throws {
        let dir = TempDir(); defer { dir.remove() }
        let s = store(dir)
        // 300 KiB: more than one 64 KiB chunk.
        var text = ""
        for i in 0..<(300 * 1024 / 8) { text += String(format8: i) }
        dir.write("big.bin", text)
        let r = try s.publishFile(path: dir.path + "/big.bin", PublishRequest(sdkMin: "1", ext: "bin"), instance: "cli")
        #expect(r.size == Int64(text.utf8.count))
        #expect(dir.read("models/\(r.file)") == text)
        do {
            _ = try s.publishFile(path: dir.path + "/big.bin", PublishRequest(sdkMin: "1", ext: "bin"), instance: "cli", expectedSHA256: sha)
            Issue.record("accepted a wrong sha")
        } catch {
            #expect(error.code == .sha256Mismatch)
        }
        #expect(dir.entries("models/.tmp") == [])
        #expect(try s.load().releases.count == 1)
    }

    @Test func upload_shaMismatchLeavesNothing_SPEC7_1() throws {
        let dir = TempDir(); defer { dir.remove() }
        let s = store(dir)
        let w = try UploadWriter(modelsDirectory: s.directory, instance: "i1")
        try w.write(Array("hello model".utf8))
        #expect(dir.entries("models/.tmp").count == 1)
        do { _ = try w.finish(expectedSHA256: sha); Issue.record("accepted") } catch {
            #expect(error.code == .sha256Mismatch)
        }
        #expect(dir.entries("models/.tmp") == [])
    }

    @Test func upload_verifiesMatchingSHA_SPEC7_1() throws {
        let dir = TempDir(); defer { dir.remove() }
        let w = try UploadWriter(modelsDirectory: dir.path, instance: "i1")
        try w.write(Array("hello ".utf8))
        try w.write(Array("model".utf8))
        let u = try w.finish(expectedSHA256: Self.helloSHA.uppercased())
        #expect(u.size == 11 && u.sha256 == Self.helloSHA)
        #expect(FileIO.entries(of: dir.path + "/.tmp").count == 1)
    }

    @Test func upload_abortAndDeinitDeleteTemp_SPEC2() throws {
        let dir = TempDir(); defer { dir.remove() }
        let w = try UploadWriter(modelsDirectory: dir.path, instance: "i1")
        try w.write(Array("partial".utf8))
        w.abort()
        w.abort()
        do {
            let w2 = try UploadWriter(modelsDirectory: dir.path, instance: "i1")
            try w2.write(Array("partial".utf8))
        }
        #expect(dir.entries(".tmp") == [])
    }

    @Test func upload_diskFullIsInsufficientStorageAndLeavesNothing_SPEC7_1() throws {
        // RLIMIT_FSIZE would kill with SIGXFSZ; /dev/full gives a real ENOSPC instead.
        var failure: CatalogError?
        do {
            try FileIO.writeAll(open("/dev/full", O_WRONLY), Array("x".utf8), path: "/dev/full")
        } catch { failure = error }
        #expect(failure?.code == .insufficientStorage)
    }

    @Test func cleanTemp_removesOnlyOwnInstance_SPEC2() throws {
        let dir = TempDir(); defer { dir.remove() }
        let s = store(dir)
        let mine = try UploadWriter(modelsDirectory: s.directory, instance: "a")
        let other = try UploadWriter(modelsDirectory: s.directory, instance: "a-b")
        try mine.write([1]); try other.write([2])
        #expect(s.cleanTemp(instance: "a") == 1)
        #expect(dir.entries("models/.tmp") == [String(other.path.split(separator: "/").last!)])
        other.abort()
        mine.abort()
    }

    @Test func cleanTemp_removesOwnFilesWhateverTheirSuffix_SPEC2() throws {
        let dir = TempDir(); defer { dir.remove() }
        let s = store(dir)
        mkdir(s.directory, 0o755)
        mkdir(s.tempDirectory, 0o755)
        let own = ["local-1-0123456789abcdef", "local-1-0123456789abcdef.part", "local-1-x", "local-1-", "local-1-ab.sig.tmp"]
        let others = ["local-1-b-0123456789abcdef", "local-10-0123456789abcdef", "local-0123", "other-0123", "modelctl-77-00ff", "local-1"]
        for name in own + others { dir.write("models/.tmp/\(name)", name) }
        #expect(s.cleanTemp(instance: "local-1") == own.count)
        #expect(dir.entries("models/.tmp") == others.sorted())
    }

    @Test func atomicReplace_leavesOldOrNew_SPEC2() throws {
        let dir = TempDir(); defer { dir.remove() }
        dir.write("f.json", "old")
        try FileIO.atomicReplace(dir.path + "/f.json", with: Array("new".utf8))
        #expect(dir.read("f.json") == "new")
        #expect(dir.entries() == ["f.json"])
        // A failing replace (target is a directory) keeps the old state and no temp.
        mkdir(dir.path + "/d", 0o755)
        dir.write("d/x", "keep")
        #expect(throws: CatalogError.self) { try FileIO.atomicReplace(dir.path + "/d", with: Array("new".utf8)) }
        #expect(dir.read("d/x") == "keep")
        #expect(dir.entries() == ["d", "f.json"])
    }

    @Test func mutate_concurrentPublishersLoseNothing_SPEC9() async throws {
        let dir = TempDir(); defer { dir.remove() }
        let path = dir.path + "/models"
        let perTask = 15
        // Each task has its own store (its own lock fd), as separate processes would.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for t in 0..<4 {
                group.addTask {
                    let s = CatalogStore(directory: path, publicBaseURL: Self.base)
                    for i in 0..<perTask {
                        let w = try UploadWriter(modelsDirectory: path, instance: "t\(t)")
                        try w.write(Array("task \(t) item \(i)".utf8))
                        _ = try s.publish(try w.finish(), PublishRequest(sdkMin: "1", label: "t\(t)-\(i)", ext: "bin"))
                    }
                }
            }
            try await group.waitForAll()
        }
        let catalog = try store(dir).load()
        #expect(catalog.releases.count == 4 * perTask)
        #expect(Set(catalog.releases.map(\.seq)) == Set(1...Int64(4 * perTask)))
        #expect(Set(catalog.releases.map(\.label)).count == 4 * perTask)
        for r in catalog.releases { #expect(dir.exists("models/\(r.file)")) }
    }

    @Test func lock_excludesOtherProcesses_SPEC9() throws {
        // A real second process: flock(1) is not fcntl, so use python's fcntl.lockf (classic
        // POSIX lock), which must conflict with our OFD lock.
        guard system("python3 -c pass") == 0 else { return }  // no python3: nothing to run
        let dir = TempDir(); defer { dir.remove() }
        let lockPath = dir.path + "/.lock"
        let held = try PublishLock.withLock(path: lockPath) { () throws(CatalogError) -> Int32 in
            system("python3 -c 'import fcntl,sys; f=open(sys.argv[1],\"w\");\ntry:\n fcntl.lockf(f, fcntl.LOCK_EX|fcntl.LOCK_NB); sys.exit(0)\nexcept OSError: sys.exit(3)' \(lockPath)")
        }
        #expect(held == 3 << 8)
        let free = system("python3 -c 'import fcntl,sys; f=open(sys.argv[1],\"w\");\ntry:\n fcntl.lockf(f, fcntl.LOCK_EX|fcntl.LOCK_NB); sys.exit(0)\nexcept OSError: sys.exit(3)' \(lockPath)")
        #expect(free == 0)
    }

    @Test func patchAndRetire_persist_SPEC7_1() throws {
        let dir = TempDir(); defer { dir.remove() }
        let s = store(dir)
        let r = try s.publish(try upload(s, "a"), PublishRequest(sdkMin: "1", ext: "onnx"))
        _ = try s.patch(id: r.id, ReleasePatch(rolloutPercent: 20))
        #expect(try s.load().release(id: r.id)?.rolloutPercent == 20)
        #expect(dir.read("models/latest_model_details.json") == "{}\n")
        let retired = try s.retire(id: r.id, now: t0)
        #expect(retired.state == .retired)
        do { _ = try s.retire(id: r.id); Issue.record("retired twice") } catch { #expect(error.code == .retired) }
        do { _ = try s.patch(id: Release.newID(), ReleasePatch(label: "x")); Issue.record("found") } catch { #expect(error.code == .notFound) }
        // Retired files stay served until GC.
        #expect(try s.load().release(file: r.file) != nil)
    }

    @Test func gc_deletesRetiredFilesAfterGrace_SPEC7_1() throws {
        let dir = TempDir(); defer { dir.remove() }
        let s = store(dir)
        let old = try s.publish(try upload(s, "old"), PublishRequest(sdkMin: "1", ext: "onnx"))
        let recent = try s.publish(try upload(s, "recent"), PublishRequest(sdkMin: "1", ext: "onnx"))
        let live = try s.publish(try upload(s, "live"), PublishRequest(sdkMin: "1", ext: "onnx"))
        _ = try s.retire(id: old.id, now: t0)
        _ = try s.retire(id: recent.id, now: t0.adding(days: 5))
        let now = t0.adding(days: 7)
        let collected = try s.collectGarbage(graceDays: 7, now: now)
        #expect(collected.map(\.id) == [old.id])
        #expect(!dir.exists("models/\(old.file)"))
        #expect(dir.exists("models/\(recent.file)") && dir.exists("models/\(live.file)"))
        let catalog = try s.load()
        #expect(catalog.release(id: old.id)?.fileDeletedAt == now)
        #expect(catalog.release(file: old.file) == nil)
        #expect(catalog.releases.count == 3)
        #expect(try s.collectGarbage(graceDays: 7, now: now).isEmpty)
    }
}

extension String {
    init(format8 i: Int) {
        let s = String(i)
        self = String(repeating: "0", count: Swift.max(0, 7 - s.count)) + s + "\n"
    }
}

@Suite struct DiskFullTests {
    /// A real ENOSPC needs a small file system: a 64 KiB tmpfs when the test runs as root with
    /// mount rights (containers, CI as root); elsewhere the test passes vacuously.
    @Test func upload_diskFullLeavesNothing_SPEC7_1() throws {
        let dir = TempDir(); defer { dir.remove() }
        let mnt = dir.path + "/small"
        mkdir(mnt, 0o755)
        guard getuid() == 0, system("mount -t tmpfs -o size=64k tmpfs '\(mnt)' 2>/dev/null") == 0 else { return }
        defer { _ = system("umount '\(mnt)'") }
        let store = CatalogStore(directory: mnt, publicBaseURL: "http://h")
        let w = try UploadWriter(modelsDirectory: mnt, instance: "i")
        let chunk = [UInt8](repeating: 7, count: 16 * 1024)
        var failure: CatalogError?
        do {
            for _ in 0..<64 { try w.write(chunk) }
            _ = try w.finish()
        } catch { failure = error }
        #expect(failure?.code == .insufficientStorage)
        #expect(FileIO.entries(of: mnt + "/.tmp") == [])
        // The catalog is untouched and a small publish still works once space is back.
        #expect(try store.load() == .empty)
        let small = try UploadWriter(modelsDirectory: mnt, instance: "i")
        try small.write([1, 2, 3])
        let r = try store.publish(try small.finish(), PublishRequest(sdkMin: "1", ext: "bin"))
        #expect(try store.load().releases == [r.value])
    }
}

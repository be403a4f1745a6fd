import Foundation
@testable import ModeldClient
import Testing

/// The v3 single-channel layout moves into `channels/<its channel>/` (SPEC §13.1), also when a
/// crash interrupted an earlier migration.
struct CacheMigrationTests {
    let root: URL
    let id = "9a0c3e1e-2f55-4b57-9d7c-36c1f1b8d9a1"

    init() throws { root = try makeTemporaryDirectory("migration") }

    /// A v3 cache of channel `beta`: state at the root, one installed model.
    func makeLegacyCache(modelsAt models: URL) throws {
        let fm = FileManager.default
        let dir = models.appendingPathComponent(id)
        try fm.createDirectory(at: dir, withIntermediateDirectories: true)
        // As v3 wrote it (JSONEncoder: escaped slashes, no label).
        let release = #"{"url":"http:\/\/x\/models\/\#(id).bin","id":"\#(id)","sha256":"\#(String(repeating: "a", count: 64))","size":3,"sdk_min":"1.0","channel":"beta"}"#
        try Data(release.utf8).write(to: dir.appendingPathComponent("release.json"))
        try Data("abc".utf8).write(to: dir.appendingPathComponent("model.bin"))
        try fm.createDirectory(at: root.appendingPathComponent("events"), withIntermediateDirectories: true)
        let state = #"{"client_id":"legacy-1","active":"\#(id)","highest_catalog":9,"activations":4,"active_is_good":false}"#
        try Data(state.utf8).write(to: root.appendingPathComponent("state.json"))
    }

    func checkMigrated(_ opened: (store: CacheStore, identity: String, lock: Int32)) throws {
        defer { DiskIO.closeFile(opened.lock) }
        #expect(opened.identity == "legacy-1")
        let beta = CacheDirectory(root: root).store("beta")
        let state = try beta.loadState(clientID: "unused", configured: false)
        #expect(state.clientID == "legacy-1" && state.active == id && state.highestCatalog == 9)
        #expect(!state.launchHealth.shouldRollBack(CrashLoopRule()))  // v3's activations are not carried over
        #expect(beta.installed(id)?.path.lastPathComponent == "model.bin")
        #expect(try CacheDirectory(root: root).channelNames() == ["beta", "stable"])
        #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("state.json").path))
        #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("models").path))
    }

    @Test func aLegacyCache_movesToTheChannelItsModelNames() throws {
        try makeLegacyCache(modelsAt: root.appendingPathComponent("models"))
        let opened = try CacheDirectory(root: root).open(channel: "stable")
        _ = try opened.store.loadState(clientID: opened.identity, configured: false)
        try checkMigrated(opened)
    }

    @Test func anInterruptedMigration_isFinished() throws {
        // The crash came after models/ moved and before state.json did.
        try makeLegacyCache(modelsAt: root.appendingPathComponent("channels/beta/models"))
        let opened = try CacheDirectory(root: root).open(channel: "stable")
        _ = try opened.store.loadState(clientID: opened.identity, configured: false)
        try checkMigrated(opened)
    }

    @Test func aCorruptLegacyState_isAnErrorAndStays() throws {
        try makeLegacyCache(modelsAt: root.appendingPathComponent("models"))
        try Data("{\"client_id\":".utf8).write(to: root.appendingPathComponent("state.json"))
        #expect(throws: ModeldClientError.self) { try CacheDirectory(root: root).open(channel: "stable") }
        #expect(try Data(contentsOf: root.appendingPathComponent("state.json")) == Data("{\"client_id\":".utf8))
        #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent("models/\(id)").path))
    }
}

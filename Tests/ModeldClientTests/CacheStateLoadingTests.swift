import Foundation
@testable import ModeldClient
import Testing

/// Issue 19 item 5 / SPEC §13.1: only a missing state.json is a first start. A truncated,
/// garbage or unreadable one is an error, and the file is left exactly as it was.
struct CacheStateLoadingTests {
    let store: CacheStore

    init() throws {
        store = CacheStore(root: try makeTemporaryDirectory("cachestate"))
        try store.createDirectories()
    }

    func original() throws -> Data {
        var state = CacheState(clientID: "device-1")
        state.highestCatalog = 42
        state.active = "9a0c3e1e-2f55-4b57-9d7c-36c1f1b8d9a1"
        try store.save(state)
        return try Data(contentsOf: store.stateURL)
    }

    @Test func missing_isAFirstStart_withTheGivenIdentity() throws {
        let state = try store.loadState(clientID: "install-7", configured: false)
        #expect(state.clientID == "install-7" && state.highestCatalog == nil)
        #expect(try store.loadState(clientID: "other", configured: false).clientID == "install-7")  // now it exists
    }

    @Test func saved_isLoadedBack_andAConfiguredIdWins() throws {
        _ = try original()
        #expect(try store.loadState(clientID: "ignored", configured: false).highestCatalog == 42)
        #expect(try store.loadState(clientID: "configured", configured: true).clientID == "configured")
    }

    @Test(arguments: ["truncated", "garbage", "empty"])
    func corrupt_isAnError_andTheFileIsUntouched(kind: String) throws {
        let good = try original()
        let bad: Data = switch kind {
        case "truncated": good.prefix(good.count / 2)
        case "garbage": Data((0..<200).map { UInt8(truncatingIfNeeded: $0 * 37) })
        default: Data()
        }
        try bad.write(to: store.stateURL)
        #expect(throws: ModeldClientError.self) { try store.loadState(clientID: "new", configured: false) }
        #expect(try Data(contentsOf: store.stateURL) == bad)
    }

    /// A read error after a successful open (EISDIR from read(2), as EIO would be).
    @Test func aReadError_isNotAFirstStart() throws {
        try FileManager.default.createDirectory(at: store.stateURL, withIntermediateDirectories: false)
        #expect(throws: ModeldClientError.self) { try store.loadState(clientID: "new", configured: false) }
        var isDirectory: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: store.stateURL.path, isDirectory: &isDirectory) && isDirectory.boolValue)
    }
}

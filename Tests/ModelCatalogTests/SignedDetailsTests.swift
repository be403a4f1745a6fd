#if canImport(Glibc)
import Glibc
#endif
import ModeldSigning
import Testing
@testable import ModelCatalog

/// The static signed metadata in a models directory (SPEC §12): retention of superseded snapshots
/// for `retired_grace_days` (signing only what is derived, SPEC §12.1: DerivedSnapshotTests).
@Suite struct SignedDetailsTests {
    let key = try! SigningKey(seed: Array(repeating: 9, count: 32))
    let day: Int64 = 86_400

    func details(_ dir: TempDir) -> SignedDetails {
        SignedDetails(store: CatalogStore(directory: dir.path, publicBaseURL: "http://x"),
                      signer: Signer(keys: [key], ttlSeconds: 600), graceDays: 7)
    }

    func setVersion(_ dir: TempDir, _ version: Int64) throws {
        dir.write("catalog.json", String(decoding: try Catalog(releases: [], catalogVersion: version).encoded(), as: UTF8.self))
    }

    func age(_ dir: TempDir, _ name: String, days: Int64, now: Int64) {
        let t = now - days * day
        var times = [timespec(tv_sec: Int(t), tv_nsec: 0), timespec(tv_sec: Int(t), tv_nsec: 0)]
        _ = utimensat(AT_FDCWD, dir.path + "/" + name, &times, 0)
    }

    @Test func supersededSnapshots_areKeptForTheGracePeriod_thenPruned() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let now = Int64(time(nil))   // the new snapshot gets a real mtime
        dir.write("latest_model_details.json", "{}\n")
        _ = mkdir(dir.path + "/details", 0o755)
        for v in 1...3 { dir.write("details/\(v).json", "{}\n") }
        age(dir, "details/2.json", days: 8, now: now)   // 1 was superseded 8 days ago: past the grace
        age(dir, "details/3.json", days: 6, now: now)   // 2 was superseded 6 days ago: kept
        try setVersion(dir, 4)
        _ = try details(dir).refresh(now: now)
        #expect(!dir.exists("details/1.json"))
        #expect(dir.exists("details/2.json") && dir.exists("details/3.json") && dir.exists("details/4.json"))
    }
}

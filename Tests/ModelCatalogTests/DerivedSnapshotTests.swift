import ModeldSigning
import Synchronization
import Testing
@testable import CatalogValue
@testable import ModelCatalog

/// SPEC §12.1: signers sign only what they derived from the catalog. The pure compare, the files
/// a version derives, and the refusals of both writers (details and rules) over altered snapshots.
@Suite struct DerivedSnapshotTests {
    static let abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"   // SHA-256 of "abc"
    static let empty = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" // SHA-256 of ""

    struct Case: Sendable, CustomTestStringConvertible {
        let derived: String
        let onDisk: String?
        let outcome: DerivedSnapshot.Outcome
        var testDescription: String { "derived \(derived.debugDescription), on disk \(onDisk.debugDescription)" }
    }

    static let cases: [Case] = [
        Case(derived: "abc", onDisk: nil, outcome: .missing),
        Case(derived: "abc", onDisk: "abc", outcome: .same),
        Case(derived: "abc", onDisk: "", outcome: .mismatch(SnapshotMismatch(
            file: "details/7.json", catalog: 7, expectedSize: 3, expectedSHA256: abc, foundSize: 0, foundSHA256: empty))),
        Case(derived: "", onDisk: "abc", outcome: .mismatch(SnapshotMismatch(
            file: "details/7.json", catalog: 7, expectedSize: 0, expectedSHA256: empty, foundSize: 3, foundSHA256: abc))),
    ]

    @Test(arguments: cases)
    func compare_missingSameOrMismatchWithBothDigests_SPEC12_1(_ c: Case) {
        let outcome = DerivedSnapshot.compare(file: "details/7.json", catalog: 7, derived: Array(c.derived.utf8), onDisk: c.onDisk.map { Array($0.utf8) })
        #expect(outcome == c.outcome)
    }

    @Test func mismatchMessage_namesTheFileBothDigestsAndTheRemedy_SPEC12_1() {
        guard case .mismatch(let m) = Self.cases[2].outcome else { Issue.record("not a mismatch"); return }
        #expect(m.message.hasPrefix("details/7.json holds other bytes than catalog version 7 derives"))
        #expect(m.message.contains(Self.abc) && m.message.contains(Self.empty) && m.message.contains("modelctl catalog bump"))
    }

    @Test func files_areTheDetailsSnapshotAndEachChannelsRules_atTheCurrentVersion() throws {
        let catalog = try Catalog(releases: [rel(1), rel(2, channel: "beta")], catalogVersion: 5, publicBaseURL: "http://x")
        let files = DerivedSnapshot.files(of: catalog, publicBaseURL: "http://x")
        #expect(files.map(\.file) == ["details/5.json", "rules/beta/5.json", "rules/stable/5.json"])
        #expect(files[0].bytes == catalog.latestDetailsJSON(publicBaseURL: "http://x"))
        #expect(files[2].bytes == catalog.rulesJSON(channel: "stable", catalogVersion: 5, publicBaseURL: "http://x"))
    }

    // MARK: - The writers

    let key = try! SigningKey(seed: Array(repeating: 7, count: 32))

    /// The files a store reported as refused, in order.
    final class Refusals: Sendable {
        private let files = Mutex<[String]>([])
        func add(_ m: SnapshotMismatch) { files.withLock { $0.append(m.file) } }
        var all: [String] { files.withLock { $0 } }
    }

    /// A models directory with a catalog at `version`, and a signing store that records refusals.
    func store(_ dir: TempDir, version: Int64, refusals: Refusals = Refusals()) throws -> CatalogStore {
        dir.write("catalog.json", String(decoding: try Catalog(releases: [rel(1)], catalogVersion: version, publicBaseURL: "http://x").encoded(), as: UTF8.self))
        return CatalogStore(directory: dir.path, publicBaseURL: "http://x", signer: Signer(keys: [key], ttlSeconds: 600), onRefused: { refusals.add($0) })
    }

    func flip(_ dir: TempDir, _ name: String) {
        let text = dir.read(name)!
        dir.write(name, text.replacingOccurrences(of: "http://x", with: "http://evil"))
    }

    @Test func details_signsTheDerivation_notTheDerivedFileOnDisk_SPEC12_1() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let s = try store(dir, version: 4)
        dir.write("latest_model_details.json", "{\"1.0.0\":null}\n")   // altered: never read back
        guard case .signed(let pointer) = try SignedDetails(store: s, signer: s.rules.signer!, graceDays: 7).refresh(now: 1_000) else {
            Issue.record("refused"); return
        }
        let derived = try s.load().latestDetailsJSON(publicBaseURL: "http://x")
        #expect(pointer.file == "details/4.json" && dir.read("details/4.json") == String(decoding: derived, as: UTF8.self))
        #expect(dir.read("latest_model_details.json") == String(decoding: derived, as: UTF8.self), "the derived file is rewritten")
        #expect(try SignatureVerifier(trusted: [key.publicKey]).verifyPointer(pointer, snapshot: derived, now: 1_000) == [key.keyID])
    }

    @Test func details_alteredSnapshot_isRefused_pointerKept_reported_thenBumpDerivesAfresh_SPEC12_1() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let refusals = Refusals()
        let s = try store(dir, version: 4, refusals: refusals)
        let details = SignedDetails(store: s, signer: s.rules.signer!, graceDays: 7)
        _ = try details.refresh(now: 1_000)
        let pointer = dir.read("latest_model_details.sig.json")
        flip(dir, "details/4.json")
        guard case .refused(let m) = try details.refresh(now: 2_000) else { Issue.record("signed an altered snapshot"); return }
        #expect(m.file == "details/4.json" && m.catalog == 4)
        #expect(dir.read("latest_model_details.sig.json") == pointer)
        #expect(refusals.all == ["details/4.json"])

        #expect(try s.bump() == 5)
        guard case .signed(let fresh) = try details.refresh(now: 3_000) else { Issue.record("refused after bump"); return }
        let derived = try s.load().latestDetailsJSON(publicBaseURL: "http://x")
        #expect(fresh.file == "details/5.json" && dir.read("details/5.json") == String(decoding: derived, as: UTF8.self))
        #expect(dir.read("details/4.json")!.contains("http://evil"), "an immutable snapshot is never replaced")
    }

    @Test func rules_alteredSnapshot_isRefused_pointerKept_reported_thenBumpDerivesAfresh_SPEC12_1() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let refusals = Refusals()
        let s = try store(dir, version: 4, refusals: refusals)
        #expect(try s.rules.refresh(store: s, now: 1_000, resign: true).channels == ["stable"])
        let pointer = dir.read("rules/stable.sig.json")
        flip(dir, "rules/stable/4.json")
        let written = try s.rules.refresh(store: s, now: 2_000, resign: true)
        #expect(written.channels.isEmpty && written.refused.map(\.file) == ["rules/stable/4.json"])
        #expect(dir.read("rules/stable.sig.json") == pointer)
        #expect(refusals.all == ["rules/stable/4.json"])

        #expect(try s.bump() == 5)   // the change itself writes the channel's fresh snapshot
        let fresh = try SignedPointer.decode(Array(dir.read("rules/stable.sig.json")!.utf8))
        let derived = try s.load().rulesJSON(channel: "stable", catalogVersion: 5, publicBaseURL: "http://x")
        #expect(fresh.file == "stable/5.json" && dir.read("rules/stable/5.json") == String(decoding: derived, as: UTF8.self))
        #expect(try SignatureVerifier(trusted: [key.publicKey]).verifyPointer(fresh, snapshot: derived, now: fresh.created) == [key.keyID])
    }

    @Test func rules_aSnapshotPlantedForTheNextVersion_isRefusedByTheChange_SPEC12_1() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let refusals = Refusals()
        let s = try store(dir, version: 4, refusals: refusals)
        try s.rules.refresh(store: s, now: 1_000, resign: false)
        let pointer = dir.read("rules/stable.sig.json")
        dir.write("rules/stable/5.json", "{\"v\":1,\"channel\":\"stable\",\"catalog\":5,\"releases\":[]}\n")
        _ = try s.patch(id: rel(1).id, ReleasePatch(rolloutPercent: 50))
        #expect(dir.read("rules/stable.sig.json") == pointer)
        #expect(refusals.all == ["rules/stable/5.json"])
    }
}

import AccessTokens
import DurableFiles
import Foundation
import Testing

/// The named tokens as a value and as a file (SPEC §15.1), without a server.
@Suite struct TokenBookTests {
    static let day: Int64 = 86_400_000

    @Test func rolesAreOrdered_viewerPublisherAdmin_SPEC15_1() {
        #expect(Role.viewer < .publisher && Role.publisher < .admin)
        #expect(Role.allCases.sorted() == [.viewer, .publisher, .admin])
    }

    @Test func aSecretOpensItsLiveTokenOnly_andExpiresAfterItsDays_SPEC15_1() throws {
        var book = TokenBook()
        let secret = TokenBook.newSecret()
        #expect(secret.utf8.count == 64)   // 256 bits, hex
        let alice = try book.add(name: "alice", role: .publisher, secretSHA256: TokenBook.digest(secret), nowMillis: 0, expiresDays: 2)
        #expect(alice.expiresMillis == 2 * Self.day)
        #expect(book.authenticate(secret: secret, nowMillis: 1)?.name == "alice")
        #expect(book.authenticate(secret: secret + "x", nowMillis: 1) == nil)
        #expect(book.authenticate(secret: String(secret.dropLast()), nowMillis: 1) == nil)
        #expect(book.authenticate(secret: secret, nowMillis: 2 * Self.day) == nil)   // expired
        #expect(book.stillValid(alice.principal, nowMillis: 1))
        #expect(!book.stillValid(alice.principal, nowMillis: 2 * Self.day))
        #expect(book.stillValid(.configuredAdmin, nowMillis: 1))
    }

    @Test func revokedTokens_andSessionsOfAnEarlierTokenOfTheSameName_openNothing_SPEC15_1() throws {
        var book = TokenBook()
        let first = try book.add(name: "bob", role: .viewer, secretSHA256: TokenBook.digest("one"), nowMillis: 0, expiresDays: nil)
        #expect(try book.revoke("bob") == first)
        #expect(book.authenticate(secret: "one", nowMillis: 1) == nil)
        #expect(throws: TokenBookError(.notFound, "no token named bob")) { try book.revoke("bob") }
        _ = try book.add(name: "bob", role: .viewer, secretSHA256: TokenBook.digest("two"), nowMillis: 2, expiresDays: nil)
        #expect(!book.stillValid(first.principal, nowMillis: 3))
    }

    @Test func namesAreChecked_andAdminIsTheConfiguredToken_SPEC15_1() throws {
        var book = TokenBook()
        let sha = TokenBook.digest("s")
        for bad in ["", "has space", "a/b", String(repeating: "x", count: 65), "ünï"] {
            #expect(throws: TokenBookError.self) { try book.add(name: bad, role: .viewer, secretSHA256: sha, nowMillis: 0, expiresDays: nil) }
        }
        #expect((try? book.add(name: "admin", role: .viewer, secretSHA256: sha, nowMillis: 0, expiresDays: nil)) == nil)
        #expect(throws: TokenBookError.self) { try book.revoke("admin") }
        _ = try book.add(name: "ci.bot@example-1_x", role: .viewer, secretSHA256: sha, nowMillis: 0, expiresDays: nil)
        do {
            _ = try book.add(name: "ci.bot@example-1_x", role: .admin, secretSHA256: sha, nowMillis: 0, expiresDays: nil)
            Issue.record("a name in use was accepted")
        } catch {
            #expect(error.kind == .nameInUse && error.code == "id_in_use" && error.httpStatus == 409)
        }
        #expect(throws: TokenBookError.self) { try book.add(name: "z", role: .viewer, secretSHA256: sha, nowMillis: 0, expiresDays: 0) }
    }

    @Test func theFileKeepsHashesOnly_andReadsBackEqual_SPEC15_1() throws {
        var book = TokenBook()
        let secret = TokenBook.newSecret()
        _ = try book.add(name: "carol", role: .admin, secretSHA256: TokenBook.digest(secret), nowMillis: 1_764_000_000_000, expiresDays: 30)
        _ = book.recordUses([TokenBook.digest(secret): 1_764_000_060_000])
        let text = String(decoding: book.json, as: UTF8.self)
        #expect(!text.contains(secret) && text.contains(TokenBook.digest(secret)))
        #expect(text.contains(#""last_used":"2025-11-24T16:01:00.000Z""#))
        #expect(try TokenBook(json: book.json) == book)
        let listing = String(decoding: book.listingJSON, as: UTF8.self)
        #expect(listing == #"[{"name":"carol","role":"admin","created":"2025-11-24T16:00:00.000Z","expires":"2025-12-24T16:00:00.000Z","last_used":"2025-11-24T16:01:00.000Z"}]"#)
        for broken in [#"{"format":2,"tokens":[]}"#, #"{"tokens":[{"name":"x"}]}"#, "[]", "{",
                       #"{"format":1,"tokens":[{"name":"a","role":"root","sha256":"\#(TokenBook.digest("a"))","created":"2026-01-01T00:00:00Z"}]}"#] {
            #expect(throws: TokenBookError.self) { try TokenBook(json: Array(broken.utf8)) }
        }
    }

    @Test func usesKeepTheLaterTime_andIgnoreRevokedTokens() throws {
        var book = TokenBook()
        _ = try book.add(name: "d", role: .viewer, secretSHA256: TokenBook.digest("d"), nowMillis: 0, expiresDays: nil)
        let recorded = book.recordUses([TokenBook.digest("d"): 10, TokenBook.digest("gone"): 20])
        let older = book.recordUses([TokenBook.digest("d"): 5])
        #expect(recorded && !older)
        #expect(book.tokens[0].lastUsedMillis == 10)
    }

    @Test func theStoreWritesMode0600Atomically_andTheCacheSeesChangesOnlyWhenTheFileChanged() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tokens-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = TokenStore(dataDir: dir)
        #expect(try store.load() == TokenBook())
        let cache = TokenCache(store: store)
        #expect(cache.refresh() == nil)
        let secret = TokenBook.newSecret()
        _ = try store.change { (book) throws(TokenBookError) in
            try book.add(name: "eve", role: .publisher, secretSHA256: TokenBook.digest(secret), nowMillis: Int64(Date().timeIntervalSince1970 * 1000), expiresDays: nil)
        }
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: store.path)[.posixPermissions] as? Int)
        #expect(mode == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == ["tokens.json", "tokens.lock"])
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        #expect(cache.authenticate(secret: secret, nowMillis: now) == nil)   // not polled yet
        #expect(cache.refresh() == nil)
        #expect(cache.authenticate(secret: secret, nowMillis: now)?.role == .publisher)
        #expect(cache.refresh() == nil)   // writes the noted use
        #expect(try store.load().tokens[0].lastUsedMillis == now)
        _ = try store.change { (book) throws(TokenBookError) in try book.revoke("eve") }
        #expect(cache.refresh() == nil)
        #expect(cache.authenticate(secret: secret, nowMillis: now) == nil)
        try Data("not json".utf8).write(to: URL(fileURLWithPath: store.path))
        #expect(cache.refresh()?.kind == .storage)   // refused, reported once
        #expect(cache.refresh() == nil)
    }
}

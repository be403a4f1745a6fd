import ChildProcesses
import Foundation
import ModeldClient
import ModeldSigning
import Testing

/// The client's side of SPEC §12 against a signing modeld: what verifies is installed, what does
/// not is rejected with the current model kept (SPEC §13; keys from the real `modelctl keys generate`).
@Suite(.serialized) final class ClientSigningTests {
    let keys: URL

    init() throws {
        keys = FileManager.default.temporaryDirectory.appendingPathComponent("client-keys-\(UUID().uuidString)")
        for name in ["a", "b"] {
            let r = try ChildProcess.run(TestBinaries.modelctl, ["keys", "generate", "--name", name, "--out", keys.path])
            try #require(r.status == 0, "keys generate: \(r.stderr)")
        }
    }

    deinit { try? FileManager.default.removeItem(at: keys) }

    func pub(_ name: String) -> String { keys.appendingPathComponent("\(name).pub").path }
    func signingServer(_ names: [String]) throws -> ClientFixture {
        try ClientFixture(environment: ["MODELD_SIGNING_KEYS": names.map { keys.appendingPathComponent("\($0).key").path }.joined(separator: ",")])
    }

    @Test func signedGzipAnswer_verifies_andA304RenewsItWithoutADownload_SPEC12_13() throws {
        let fx = try signingServer(["a"])
        let published = try fx.publish(size: 50_000)
        let update = try fx.client(["--trust-key", pub("a"), "--json", "update"])
        #expect(update.status == 0, "\(update.stderr)")
        #expect(!update.stderr.contains("unsigned"))
        let doc = try fx.json(update)
        #expect(doc["state"] as? String == "updated" && (doc["active"] as? [String: Any])?["id"] as? String == published.id)
        #expect((doc["catalog"] as? Int ?? 0) >= 1)
        // The answer came gzip-encoded; the signature is over the identity body.
        let latest = try #require(fx.proxy.responses.first { $0.target.hasPrefix("/latest") })
        #expect(latest.head.lowercased().contains("content-encoding: gzip"), "\(latest.head)")

        #expect(try fx.client(["--trust-key", pub("a"), "flush"]).status == 0)
        let check = try fx.client(["--trust-key", pub("a"), "--json", "check"])
        #expect(check.status == 0, "\(check.stderr)")
        #expect(try fx.json(check)["state"] as? String == "up_to_date")
        let revalidated = try #require(fx.proxy.responses.last { $0.target.hasPrefix("/latest") })
        #expect(revalidated.head.hasPrefix("HTTP/1.1 304") && revalidated.head.contains("Modeld-Signature:"))
    }

    @Test func missingExpiredOlderOrForeignSignatures_areRejected_andTheCurrentModelStays_SPEC12_13() async throws {
        let fx = try signingServer(["a"])
        let first = try fx.publish(size: 10_000)
        let trustA = try TrustedPublicKey(pubFileContents: String(contentsOfFile: pub("a"), encoding: .utf8))
        let client = try ModelChannel(ModeldConfiguration(source: .server(URL(string: fx.proxy.url)!), sdkVersion: "2.3",
                                                          cacheDirectory: fx.cache, trustedKeys: [trustA], backoffBase: 0.001))
        #expect(try await client.update().active?.id == first.id)
        let catalog = try #require(await client.highestCatalog)
        _ = try fx.publish(size: 20_000)

        let body = try #require(try fx.curlLatestBody())
        let key = try KeyFileFormat.parsePrivate(String(contentsOfFile: keys.appendingPathComponent("a.key").path, encoding: .utf8))
        let now = Int64(Date().timeIntervalSince1970)
        func signed(catalog: Int64, created: Int64, expires: Int64) -> FaultProxy.Fault {
            let params = SignatureParams(catalog: catalog, created: created, expires: expires)
            let signature = Signature(keyID: key.publicKey.keyID, bytes: key.sign(params.base(kind: .latest, body: body)))
            return .respond(status: "200 OK", headers: ["Content-Type: application/json", "\(SignatureParams.headerName): \(params.headerValue)",
                                                        "\(SignatureList.headerName): \(SignatureList.headerValue([signature]))"], body: body)
        }
        let cases: [(String, FaultProxy.Fault)] = [
            ("no signature", .respond(status: "200 OK", headers: ["Content-Type: application/json"], body: body)),
            ("expired", signed(catalog: catalog + 1, created: now - 864_000, expires: now - 400)),
            ("older than", signed(catalog: catalog - 1, created: now, expires: now + 3600)),
            ("does not match", signed(catalog: catalog + 1, created: now, expires: now + 3600)
                .tampered { $0.replacingOccurrences(of: "catalog=\(catalog + 1)", with: "catalog=\(catalog + 2)") }),
        ]
        for (reason, fault) in cases {
            fx.proxy.add(.init(pathContains: "/latest", fault: fault, times: 1))
            await #expect(performing: { try await Self.checkSoon(client) }, throws: { error in
                guard case ModeldClientError.verification(let why) = error else { return false }
                return why.contains(reason) || (reason == "does not match" && why.contains("no signature verifies"))
            })
            #expect(await client.activeModel()?.id == first.id)
        }

        // A client trusting only another key rejects the real, correctly signed answer.
        let trustB = try TrustedPublicKey(pubFileContents: String(contentsOfFile: pub("b"), encoding: .utf8))
        let other = try ModelChannel(ModeldConfiguration(source: .server(URL(string: fx.proxy.url)!), sdkVersion: "2.3",
                                                         cacheDirectory: fx.scratch.appendingPathComponent("cache-b"), trustedKeys: [trustB]))
        await #expect(throws: ModeldClientError.self) { try await other.update() }
        #expect(await other.activeModel() == nil)

        // The genuine answer still installs.
        #expect(try await Self.updateSoon(client).status == .updated)
    }

    @Test func rotation_dualSignedAnswers_areAcceptedByClientsTrustingEitherKey_SPEC12() throws {
        let fx = try signingServer(["a", "b"])
        _ = try fx.publish(size: 5_000)
        for name in ["a", "b"] {
            let cache = fx.scratch.appendingPathComponent("cache-\(name)")
            let r = try fx.client(["--trust-key", pub(name), "--json", "update"], cache: cache)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(try fx.json(r)["state"] as? String == "updated")
        }
    }

    /// A check, waiting out the (tiny) back-off of the previous failure.
    static func checkSoon(_ client: ModelChannel) async throws -> CheckResult {
        for _ in 0..<100 {
            do { return try await client.check() } catch ModeldClientError.deferred { try await Task.sleep(for: .milliseconds(20)) }
        }
        return try await client.check()
    }

    static func updateSoon(_ client: ModelChannel) async throws -> UpdateResult {
        _ = try await checkSoon(client)
        return try await client.update()
    }
}

extension FaultProxy.Fault {
    /// The same canned answer with its headers edited (a signature that no longer matches its params).
    func tampered(_ edit: (String) -> String) -> FaultProxy.Fault {
        guard case .respond(let status, let headers, let body) = self else { return self }
        return .respond(status: status, headers: headers.map(edit), body: body)
    }
}

extension ClientFixture {
    /// The identity body of `GET /latest?sdk=2.3` straight from the server.
    func curlLatestBody() throws -> [UInt8]? {
        let r = try Curl.run([server.url + "/latest?sdk=2.3"])
        return r.status == 200 ? Array(r.body) : nil
    }
}

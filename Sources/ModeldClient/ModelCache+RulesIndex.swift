import Foundation
import ModeldSigning

// Rules mode with several channels (SPEC §17.2): one revalidation of `rules/index.sig.json` per
// poll (a 304 mostly), then only the snapshots whose entry changed, each verified against its
// entry by its channel.

extension ModelCache {
    func checkWithIndex(_ channels: [ModelChannel], base: URL, _ trigger: UpdateTrigger,
                        into results: inout [String: Result<CheckResult, any Error>]) async {
        let index = await fetchIndex(base)
        let signed = !verifier.acceptsUnsigned
        for channel in channels {
            let name = channel.configuration.channel
            let entry = index.map { ($0.channels[name], signed: signed) }
            do { results[name] = .success(try await channel.checkRules(entry: entry, trigger)) } catch { results[name] = .failure(error) }
        }
    }

    /// `<cache>/rules-index.json`: the index's ETag and verified bytes, and the highest catalog a
    /// verified index carried (an older one is refused: rollback protection).
    private var indexFile: URL { configuration.cacheDirectory.appendingPathComponent("rules-index.json") }

    private struct StoredIndex: Codable, Equatable {
        var etag: String?
        var index: String?
        var highestCatalog: Int64?

        enum CodingKeys: String, CodingKey {
            case etag, index, highestCatalog = "highest_catalog"
        }
    }

    /// Revalidates the index (`If-None-Match`; a 304 re-verifies the stored one, so expiry still
    /// applies) and verifies it.
    private func fetchIndex(_ base: URL) async -> Result<RulesIndex, RulesSource.Failure> {
        var stored = (try? DiskIO.readIfExists(indexFile)).flatMap { $0 }.flatMap { try? JSONDecoder().decode(StoredIndex.self, from: $0) } ?? StoredIndex()
        let before = stored
        var request = HTTPRequest(url: base.appendingPathComponent(RulesIndex.path))
        if let etag = stored.etag, stored.index != nil { request.headers["If-None-Match"] = etag }
        do {
            let answer = try await transports.control.send(request)
            let bytes: [UInt8]
            switch answer.status {
            case 304: bytes = Array((stored.index ?? "").utf8)
            case 200: bytes = answer.body
            default: return .failure(RulesSource.Failure(answer))
            }
            let index = try verifier.verifyIndex(bytes, now: Date())
            if !verifier.acceptsUnsigned {
                if let highest = stored.highestCatalog, index.catalog < highest {
                    throw ModeldClientError.verification("rules index catalog version \(index.catalog) is older than \(highest), already seen")
                }
                stored.highestCatalog = max(index.catalog, stored.highestCatalog ?? index.catalog)
            }
            if answer.status == 200 { (stored.etag, stored.index) = (answer.header("ETag"), String(decoding: bytes, as: UTF8.self)) }
            if stored != before { try DiskIO.atomicWrite(try JSONEncoder().encode(stored), to: indexFile) }
            return .success(index)
        } catch let error as ModeldClientError {
            return .failure(RulesSource.Failure(error))
        } catch {
            return .failure(RulesSource.Failure(.io("\(error)")))
        }
    }
}

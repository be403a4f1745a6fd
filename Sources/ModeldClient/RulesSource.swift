import ContentDigest
import Foundation
import ReleaseSelection
import ModeldSigning

/// Rules mode (SPEC §9.2): the signed pointer `rules/<channel>.sig.json` names an immutable
/// snapshot of the channel's selection inputs; the client verifies both like SPEC §12 and
/// evaluates them itself with the server's own `ReleaseSelector`, so it installs exactly what
/// `/latest` would have answered, reading only a bucket or CDN.
///
/// One per client, kept across checks: the stored pointer and the snapshot decoded for it stay
/// in memory, so a check whose snapshot did not change (a 304, or a pointer re-signed for the
/// same file) re-verifies the pointer and evaluates, without hashing or decoding the snapshot
/// again, and writes nothing to disk.
final class RulesSource: Sendable {
    let base: URL
    let rules: RulesVerifier
    var channel: String { rules.channel }
    var verifier: any MetadataVerifier { rules.verifier }
    let transport: any HTTPTransport
    /// `<cache>/rules/<channel>.json`: the pointer's ETag, the verified bytes and the channel's
    /// highest verified catalog (rollback protection per channel: an unchanged channel keeps an
    /// older N while the catalog moves on).
    let cacheFile: URL

    struct Cached: Codable, Equatable {
        var etag: String?
        var pointer: String?
        var snapshot: String?
        var highestCatalog: Int64?

        enum CodingKeys: String, CodingKey {
            case etag, pointer, snapshot, highestCatalog = "highest_catalog"
        }
    }

    /// What this process knows: `cacheFile`'s contents (read once) and the last verified outcome,
    /// whose decoded snapshot is reused while the pointer names the same bytes.
    private struct Memory {
        var cached: Cached?
        var last: RulesVerifier.Outcome?
        var decodes = 0
    }
    private let memory = Locked(Memory())

    init(base: URL, rules: RulesVerifier, transport: any HTTPTransport, cacheFile: URL) {
        self.base = base
        self.rules = rules
        self.transport = transport
        self.cacheFile = cacheFile
    }

    /// Snapshots this source has decoded (each verified snapshot once, however many checks).
    var snapshotDecodes: Int { memory.withLock { $0.decodes } }

    /// A server error with its `Retry-After` header, for the client's back-off.
    struct Failure: Error {
        let error: ModeldClientError
        let retryAfter: String?

        init(_ answer: HTTPAnswer) {
            error = answer.asError()
            retryAfter = answer.header("Retry-After")
        }

        init(_ error: ModeldClientError) {
            self.error = error
            retryAfter = nil
        }
    }

    var pointerURL: URL { base.appendingPathComponent(SignedPointer.rulesPointerPath(channel: channel)) }

    /// Revalidates the pointer (`If-None-Match`; a 304 re-verifies the stored pointer, so expiry
    /// still applies), fetches the snapshot it names when new, verifies, and remembers it.
    /// Failures are `network`/`server` (try later) or `verification` (keep the current model).
    func fetch(now: Date) async throws -> RulesVerifier.Outcome {
        let known = memory.withLock { $0 }
        var cached = known.cached ?? load()
        var request = HTTPRequest(url: pointerURL)
        if let etag = cached.etag, cached.pointer != nil, cached.snapshot != nil { request.headers["If-None-Match"] = etag }
        let answer = try await transport.send(request)
        let pointerBytes: [UInt8], snapshotBytes: [UInt8]?
        switch answer.status {
        case 304:
            pointerBytes = Array((cached.pointer ?? "").utf8)
            snapshotBytes = nil   // the stored one: read below only when not already decoded
        case 200:
            pointerBytes = answer.body
            let pointer = try verifier.verifyPointer(pointerBytes, now: now)
            if let stored = cached.pointer.map({ Array($0.utf8) }), let old = try? verifier.verifyPointer(stored, now: now),
               old.file == pointer.file, cached.snapshot != nil {
                snapshotBytes = nil   // re-signed only: the snapshot is immutable
            } else {
                guard let url = URL(string: pointer.file, relativeTo: pointerURL) else {
                    throw ModeldClientError.verification("pointer names a bad file '\(pointer.file)'")
                }
                let snapshot = try await transport.send(HTTPRequest(url: url))
                // A pointer whose file is missing means "later", never "no model".
                guard snapshot.status == 200 else { throw Failure(snapshot) }
                snapshotBytes = snapshot.body
            }
        default:
            throw Failure(answer)
        }
        let outcome = try rules.verify(pointer: pointerBytes, now: now, highest: cached.highestCatalog, reusing: known.last) {
            snapshotBytes ?? Array((cached.snapshot ?? "").utf8)
        }
        let before = cached
        if answer.status == 200 {
            cached.etag = answer.header("ETag")
            cached.pointer = String(decoding: pointerBytes, as: UTF8.self)
            if let snapshotBytes { cached.snapshot = String(decoding: snapshotBytes, as: UTF8.self) }
        }
        return try remember(cached, changedFrom: before, outcome)
    }

    /// The snapshot a verified rules index names for this channel (SPEC §17.2): reused when it
    /// is the one last verified, else fetched and verified against the entry. `signed`: the
    /// index's signature vouched for the entry (its catalog then ratchets this channel).
    func fetch(entry: RulesIndex.Entry, signed: Bool) async throws -> RulesVerifier.Outcome {
        let known = memory.withLock { $0 }
        var cached = known.cached ?? load()
        var fetched: [UInt8]?
        if known.last.map({ $0.snapshotSHA256 != entry.sha256 || $0.snapshotSize != entry.size }) ?? true,
           cached.snapshot.map({ SHA256Hex.of(Array($0.utf8)) != entry.sha256 }) ?? true {
            let answer = try await transport.send(HTTPRequest(url: base.appendingPathComponent(SignedPointer.rulesDirectory + "/" + entry.file)))
            guard answer.status == 200 else { throw Failure(answer) }   // an entry whose file is missing means "later"
            fetched = answer.body
        }
        let outcome = try rules.verify(entry: entry, signed: signed, highest: cached.highestCatalog, reusing: known.last) {
            fetched ?? Array((cached.snapshot ?? "").utf8)
        }
        let before = cached
        if let fetched {
            // The channel's own pointer no longer describes the snapshot kept: drop it (and its ETag).
            (cached.snapshot, cached.pointer, cached.etag) = (String(decoding: fetched, as: UTF8.self), nil, nil)
        }
        return try remember(cached, changedFrom: before, outcome)
    }

    /// Keeps a verified outcome: the channel's ratchet, the cache file when it changed, memory.
    private func remember(_ kept: Cached, changedFrom before: Cached, _ outcome: RulesVerifier.Outcome) throws -> RulesVerifier.Outcome {
        var cached = kept
        if let catalog = outcome.catalog { cached.highestCatalog = max(catalog, cached.highestCatalog ?? catalog) }
        if cached != before { try save(cached) }
        memory.withLock { m in
            m.cached = cached
            m.last = outcome
            if outcome.decoded { m.decodes += 1 }
        }
        return outcome
    }

    private func load() -> Cached {
        guard let data = try? Data(contentsOf: cacheFile), let cached = try? JSONDecoder().decode(Cached.self, from: data) else {
            return Cached()
        }
        return cached
    }

    private func save(_ cached: Cached) throws {
        try FileManager.default.createDirectory(at: cacheFile.deletingLastPathComponent(), withIntermediateDirectories: true)
        try DiskIO.atomicWrite(try JSONEncoder().encode(cached), to: cacheFile)
    }
}

/// Verification of a channel's rules pointer and snapshot (SPEC §9.2 with §12's client rules),
/// `package` so `modeld-client simulate --rules` verifies alike (no public API for a tool, SPEC §13.2).
package struct RulesVerifier: Sendable {
    package let channel: String
    let verifier: any MetadataVerifier

    package struct Outcome: Sendable {
        package let snapshot: RulesSnapshot
        /// The catalog version a verified signature vouched for; nil when accepted unsigned.
        package let catalog: Int64?
        /// The verified snapshot's SHA-256 and size (the pointer's): what a later pointer must
        /// name for `snapshot` to be reused.
        let snapshotSHA256: String
        let snapshotSize: Int
        /// Whether this verification decoded the snapshot (false: reused from the previous outcome).
        let decoded: Bool
    }

    /// `trustedKeys` empty: unsigned pointers are accepted (development only).
    package init(channel: String, trustedKeys: [TrustedPublicKey]) throws {
        self.channel = channel
        verifier = trustedKeys.isEmpty ? UnsignedVerifier() : try SignedMetadataVerifier(keys: trustedKeys)
    }

    init(channel: String, verifier: any MetadataVerifier) {
        self.channel = channel
        self.verifier = verifier
    }

    /// SPEC §12's client rules applied to a rules pointer and its snapshot: trusted signature
    /// (unless none is trusted), not expired, kind `rules` of this channel, the snapshot's size
    /// and SHA-256, its `channel` and `catalog` equal to the pointer's, and a catalog not lower
    /// than the highest verified for this channel. With `previous` (the last outcome) and a
    /// pointer naming the same snapshot bytes, its decoded snapshot is reused: the pointer is
    /// still verified in full (signature, expiry, catalog), the snapshot is not hashed again.
    package func verify(pointer: [UInt8], snapshot: [UInt8], now: Date, highest: Int64?, reusing previous: Outcome? = nil) throws -> Outcome {
        try verify(pointer: pointer, now: now, highest: highest, reusing: previous) { snapshot }
    }

    /// A snapshot named by a rules index entry (SPEC §17.2): its size and SHA-256 the entry's,
    /// its `channel` this one and its `catalog` the entry's N, which must not be lower than the
    /// highest verified for this channel (when the index was signed).
    func verify(entry: RulesIndex.Entry, signed: Bool, highest: Int64?, reusing previous: Outcome?,
                snapshot: () throws -> [UInt8]) throws -> Outcome {
        guard let n = entry.catalog else { throw ModeldClientError.verification("index entry names \(entry.file)") }
        let catalog = signed ? n : nil
        if let catalog, let highest, catalog < highest {
            throw ModeldClientError.verification("rules catalog version \(catalog) is older than \(highest), already seen for channel \(channel)")
        }
        return try self.snapshot(sha256: entry.sha256, size: entry.size, file: entry.file, catalog: n, vouched: catalog, reusing: previous, bytes: snapshot)
    }

    /// `verify`, reading the snapshot's bytes only when they must be hashed and decoded.
    func verify(pointer pointerBytes: [UInt8], now: Date, highest: Int64?, reusing previous: Outcome?,
                snapshot: () throws -> [UInt8]) throws -> Outcome {
        let pointer = try verifier.verifyPointer(pointerBytes, now: now)
        guard pointer.kind == .rules, pointer.channel == channel else {
            throw ModeldClientError.verification("not the rules pointer of channel \(channel)")
        }
        let catalog = verifier.acceptsUnsigned ? nil : pointer.catalog
        if let catalog, let highest, catalog < highest {
            throw ModeldClientError.verification("rules catalog version \(catalog) is older than \(highest), already seen for channel \(channel)")
        }
        return try self.snapshot(sha256: pointer.sha256, size: pointer.size, file: pointer.file, catalog: pointer.catalog, vouched: catalog,
                                 reusing: previous, bytes: snapshot)
    }

    /// The snapshot a pointer or index entry names (`size`, `sha256`, `catalog`), reused from
    /// `previous` when it is the same bytes; `vouched`: the catalog a signature vouched for.
    private func snapshot(sha256: String, size: Int, file: String, catalog: Int64, vouched: Int64?, reusing previous: Outcome?,
                          bytes snapshot: () throws -> [UInt8]) throws -> Outcome {
        let decoded: RulesSnapshot
        let reused = previous.flatMap { $0.snapshotSHA256 == sha256 && $0.snapshotSize == size ? $0.snapshot : nil }
        if let reused {
            decoded = reused
        } else {
            let bytes = try snapshot()
            guard bytes.count == size, SHA256Hex.of(bytes) == sha256 else {
                throw ModeldClientError.verification("\(file) does not match the size and sha256 it was named with")
            }
            do { decoded = try JSONDecoder().decode(RulesSnapshot.self, from: Data(bytes)).validated() } catch {
                throw ModeldClientError.verification("\(file) is not a rules snapshot: \(error)")
            }
        }
        guard decoded.channel == channel, decoded.catalog == catalog else {
            throw ModeldClientError.verification("\(file) is channel \(decoded.channel) at catalog \(decoded.catalog), not \(channel) at \(catalog)")
        }
        return Outcome(snapshot: decoded, catalog: vouched, snapshotSHA256: sha256, snapshotSize: size, decoded: reused == nil)
    }
}

extension SDKVersion {
    /// Whether `sdk_min <= self < sdk_max` for `release`.
    func admits(_ release: ReleaseDocument) -> Bool {
        guard let min = SDKVersion(release.sdkMin), min <= self else { return false }
        guard let maxText = release.sdkMax else { return true }
        guard let max = SDKVersion(maxText) else { return false }
        return self < max
    }
}

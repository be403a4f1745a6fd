import HTTPServer
import HTTPWire
import ModelCatalog
import ModeldSigning
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// `GET|HEAD /latest_model_details.sig.json` and `/details/<N>.json` (SPEC §12), and
/// `/rules/<channel>.sig.json` and `/rules/<channel>/<N>.json` (SPEC §9.2): the static signed
/// metadata, read from the models directory whoever wrote it (this server or modelctl).
/// Small files, rarely asked for (clients in static mode read them from a CDN): read per
/// request; gzip bodies of the immutable snapshots are kept in a small cache.
struct SignedMetadataResponder: Sendable {
    static let pointerPath = "/" + SignedPointer.fileName
    static let snapshotPrefix = "/" + SignedPointer.snapshotDirectory + "/"
    static let rulesPrefix = "/" + SignedPointer.rulesDirectory + "/"
    static let maxBytes = 64 << 20
    static let immutable = "public, max-age=31536000, immutable"

    let modelsDir: String
    let maxAgeSeconds: Int
    private let gzipCache = GzipCache()

    init(modelsDir: String, maxAgeSeconds: Int) {
        self.modelsDir = modelsDir
        self.maxAgeSeconds = maxAgeSeconds
    }

    /// Reads the file: call it off the loop.
    func respond(_ head: RequestHead) -> Response {
        let file: String, cacheControl: String, missing: String
        if head.path == Self.pointerPath {
            (file, cacheControl) = (SignedPointer.fileName, "public, max-age=\(maxAgeSeconds)")
            missing = "\(file) has not been written (no signing key configured?)"
        } else if let version = Self.snapshotVersion(head.path, prefix: Self.snapshotPrefix) {
            (file, cacheControl) = (SignedPointer.snapshotPath(catalog: version), Self.immutable)
            missing = "\(file) has not been written (no signing key configured?)"
        } else if let rules = Self.rulesFile(head.path) {
            file = rules.file
            cacheControl = rules.immutable ? Self.immutable : "public, max-age=\(maxAgeSeconds)"
            missing = "no rules for channel \(rules.channel) (no release was ever published to it)"
        } else {
            return Router.notFound
        }
        guard let bytes = Self.read(modelsDir + "/" + file) else {
            return Response.error(404, "not_found", missing)
        }
        let gzip = AcceptEncoding.allowsGzip(head.headers["Accept-Encoding"])
        let identityETag = GeneratedBodyETag.of(bytes)
        let body: (bytes: [UInt8], etag: String) = gzip ? gzipCache.compressed(bytes, etag: identityETag) : (bytes, identityETag)
        var headers: HTTPFields = ["ETag": body.etag, "Cache-Control": cacheControl, "Vary": "Accept-Encoding"]
        if GeneratedBodyETag.isNotModified(head, etag: body.etag) {
            return Response(status: 304, headers: headers)
        }
        headers.append("Content-Type", "application/json")
        if gzip { headers.append("Content-Encoding", "gzip") }
        return Response(headers: headers, body: body.bytes)
    }

    /// `/rules/<channel>.sig.json` (the pointer) or `/rules/<channel>/<N>.json` (a snapshot),
    /// with the channel `[a-z0-9_-]{1,32}` so no path can leave `rules/`.
    static func rulesFile(_ path: String) -> (channel: String, file: String, immutable: Bool)? {
        guard path.hasPrefix(rulesPrefix) else { return nil }
        let rest = path.dropFirst(rulesPrefix.count)
        if let slash = rest.firstIndex(of: "/") {
            let channel = String(rest[..<slash])
            guard NameRule.matches(channel),
                  let version = snapshotVersion(String(rest[slash...]), prefix: "/") else { return nil }
            return (channel, SignedPointer.rulesSnapshotPath(channel: channel, catalog: version), true)
        }
        guard rest.hasSuffix(".sig.json") else { return nil }
        let channel = String(rest.dropLast(".sig.json".count))
        guard NameRule.matches(channel) else { return nil }
        return (channel, SignedPointer.rulesPointerPath(channel: channel), false)
    }

    /// `<prefix><N>.json` with N a plain decimal (no sign, no leading zero, no other path).
    static func snapshotVersion(_ path: String, prefix: String) -> Int64? {
        guard path.hasPrefix(prefix), path.hasSuffix(".json") else { return nil }
        let digits = path.dropFirst(prefix.count).dropLast(5)
        guard (1...18).contains(digits.count), digits.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
              digits.first != "0" || digits.count == 1 else { return nil }
        return Int64(digits)
    }

    private static func read(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while out.count <= maxBytes {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return n == 0 ? out : nil }
            out += chunk[..<n]
        }
        return nil
    }
}

/// gzip bodies by identity ETag: a pointer changes rarely and a snapshot never, so each is
/// compressed once, not per request. Bounded: emptied when full.
private final class GzipCache: Sendable {
    private static let capacity = 256
    private let entries = Mutex<[String: (bytes: [UInt8], etag: String)]>([:])

    func compressed(_ identity: [UInt8], etag: String) -> (bytes: [UInt8], etag: String) {
        if let hit = entries.withLock({ $0[etag] }) { return hit }
        let gzip = Gzip.compress(identity)
        let entry = (gzip, GeneratedBodyETag.of(gzip))
        entries.withLock {
            if $0.count >= Self.capacity { $0.removeAll() }
            $0[etag] = entry
        }
        return entry
    }
}

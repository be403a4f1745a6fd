import HTTPServer
import HTTPWire
import ModelCatalog
import ModeldSigning
#if canImport(Glibc)
import Glibc
#endif

/// `GET|HEAD /latest_model_details.sig.json` and `/details/<N>.json` (SPEC §12): the static
/// signed metadata, read from the models directory whoever wrote it (this server or modelctl).
/// Small files, rarely asked for (clients in static mode read them from a CDN): read per request.
struct SignedMetadataResponder: Sendable {
    static let pointerPath = "/" + SignedPointer.fileName
    static let snapshotPrefix = "/" + SignedPointer.snapshotDirectory + "/"
    static let maxBytes = 64 << 20

    let modelsDir: String
    let maxAgeSeconds: Int

    static func owns(_ path: String) -> Bool { path == pointerPath || path.hasPrefix(snapshotPrefix) }

    func respond(_ head: RequestHead) -> Response {
        let label = RequestLabel(route: .latest)
        guard head.method == "GET" || head.method == "HEAD" else {
            var r = Response.error(405, "method_not_allowed", "allowed: GET, HEAD")
            r.headers.append("Allow", "GET, HEAD")
            return r.labelled(label)
        }
        let file: String, cacheControl: String
        if head.path == Self.pointerPath {
            file = SignedPointer.fileName
            cacheControl = "public, max-age=\(maxAgeSeconds)"
        } else if let version = Self.snapshotVersion(head.path) {
            file = SignedPointer.snapshotPath(catalog: version)
            cacheControl = "public, max-age=31536000, immutable"
        } else {
            return Response.error(404, "not_found", "no such resource").labelled(label)
        }
        guard let bytes = Self.read(modelsDir + "/" + file) else {
            return Response.error(404, "not_found", "\(file) has not been written (no signing key configured?)").labelled(label)
        }
        let etag = GeneratedBodyETag.of(bytes)
        let headers: HTTPFields = ["ETag": etag, "Cache-Control": cacheControl]
        if GeneratedBodyETag.isNotModified(head, etag: etag) {
            return Response(status: 304, headers: headers, label: label)
        }
        var r = Response(headers: headers, body: bytes, label: label)
        r.headers.append("Content-Type", "application/json")
        return r
    }

    /// `/details/<N>.json` with N a plain decimal (no sign, no leading zero, no other path).
    static func snapshotVersion(_ path: String) -> Int64? {
        guard path.hasPrefix(snapshotPrefix), path.hasSuffix(".json") else { return nil }
        let digits = path.dropFirst(snapshotPrefix.count).dropLast(5)
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

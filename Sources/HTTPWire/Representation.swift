import CivilTime

// A static representation (a model file) answered for GET/HEAD: preconditions, then ranges,
// then the headers each status carries. Pure: the route turns the plan into a Response.

/// Build it once per catalog change: the parsed tag and the Last-Modified text are derived here,
/// so planning a request does no date formatting.
public struct Representation: Sendable {
    public let size: Int64
    /// A strong quoted tag, e.g. `"<sha256 hex>"`.
    public let etag: String
    /// Whole epoch seconds (HTTP-dates have no finer resolution).
    public let lastModified: Int64
    public let contentType: String
    /// Sent on 200/206 after the standard ones (Cache-Control, Repr-Digest…); on a 304 only the
    /// cache-relevant ones among them survive.
    public let headers: [(String, String)]
    let entityTag: EntityTag?
    let lastModifiedText: String

    public init(size: Int64, etag: String, lastModified: Int64, contentType: String, headers: [(String, String)] = []) {
        self.size = size
        self.etag = etag
        self.lastModified = lastModified
        self.contentType = contentType
        self.headers = headers
        entityTag = EntityTag.parse(etag)
        lastModifiedText = HTTPDate.format(epochSeconds: lastModified)
    }
}

public struct RepresentationPlan: Sendable {
    public var status: Int
    /// Never Content-Length or Date: the engine derives those.
    public var headers: [(String, String)]
    public var parts: [BodyPart]

    public init(status: Int, headers: [(String, String)], parts: [BodyPart]) {
        self.status = status
        self.headers = headers
        self.parts = parts
    }

    /// The body length the engine will announce: the sum of the parts (64-bit).
    public var contentLength: Int64 { parts.reduce(0) { $0 + $1.length } }

    /// First value of a header, case-insensitively.
    public func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }
}

public enum RepresentationResponder {
    /// RFC 9110 §15.4.5: a 304 carries the fields a 200 would have had among these, and no other
    /// representation metadata (so no Content-Type, and no Last-Modified: we always send an ETag).
    static let notModifiedFields: Set<String> = ["cache-control", "content-location", "etag", "expires", "vary"]

    /// HEAD gets exactly the plan of GET; the engine drops the body. Any other method is the
    /// route's business (405), though the plan would still be consistent for it: ranges ignored,
    /// a matching If-None-Match is 412.
    /// `boundary` names the multipart boundary (random per call by default, fixed in tests).
    public static func plan(method: String, request: ConditionalHeaders, representation r: Representation,
                            boundary: @autoclosure () -> String = MultipartByteranges.randomBoundary()) -> RepresentationPlan {
        let range: String?
        switch Preconditions.evaluate(method: method, headers: request, etag: r.entityTag, lastModified: r.lastModified) {
        case .notModified:
            let headers = ([("ETag", r.etag)] + r.headers).filter { notModifiedFields.contains($0.0.lowercased()) }
            return RepresentationPlan(status: 304, headers: headers, parts: [])
        case .preconditionFailed:
            return error(412, "precondition_failed", "the request's preconditions do not hold for the current representation", [])
        case .proceed(let kept): range = kept
        }

        var headers = [("Content-Type", r.contentType), ("ETag", r.etag),
                       ("Last-Modified", r.lastModifiedText), ("Accept-Ranges", "bytes")]
        headers += r.headers
        switch ByteRangeSet.resolve(header: range, size: r.size) {
        case .whole:
            return RepresentationPlan(status: 200, headers: headers, parts: [.file(offset: 0, length: r.size)])
        case .ranges(let ranges) where ranges.count == 1:
            headers.append(("Content-Range", ranges[0].contentRange(size: r.size)))
            return RepresentationPlan(status: 206, headers: headers, parts: [.file(offset: ranges[0].start, length: ranges[0].length)])
        case .ranges(let ranges):
            let multipart = MultipartByteranges(ranges: ranges, size: r.size, contentType: r.contentType, boundary: boundary())
            headers[0] = ("Content-Type", multipart.contentType)
            return RepresentationPlan(status: 206, headers: headers, parts: multipart.parts)
        case .malformed:
            return error(416, "range_not_satisfiable", "the Range header is not a valid byte-range set",
                         [("Content-Range", "bytes */\(r.size)")])
        case .unsatisfiable:
            return error(416, "range_not_satisfiable", "no requested range starts within the \(r.size)-byte representation",
                         [("Content-Range", "bytes */\(r.size)")])
        }
    }

    /// SPEC §10's error shape. Validators and cache headers of the representation are left out:
    /// they describe the file, not this error.
    private static func error(_ status: Int, _ code: String, _ message: String, _ extra: [(String, String)]) -> RepresentationPlan {
        let body = Array(#"{"error":"\#(code)","message":"\#(message)"}"#.utf8)
        return RepresentationPlan(status: status,
                                  headers: extra + [("Content-Type", "application/json"), ("Cache-Control", "no-store")],
                                  parts: [.bytes(body)])
    }
}

import CivilTime

// Conditional requests, evaluated in RFC 9110 §13.2.2 order as SPEC §4.3 states it.

/// The request headers that conditional and range handling read, as sent (nil = absent).
public struct ConditionalHeaders: Sendable, Hashable {
    public var ifMatch: String?
    public var ifNoneMatch: String?
    public var ifModifiedSince: String?
    public var ifUnmodifiedSince: String?
    public var ifRange: String?
    public var range: String?

    public init(ifMatch: String? = nil, ifNoneMatch: String? = nil, ifModifiedSince: String? = nil,
                ifUnmodifiedSince: String? = nil, ifRange: String? = nil, range: String? = nil) {
        self.ifMatch = ifMatch
        self.ifNoneMatch = ifNoneMatch
        self.ifModifiedSince = ifModifiedSince
        self.ifUnmodifiedSince = ifUnmodifiedSince
        self.ifRange = ifRange
        self.range = range
    }
}

public enum Preconditions {
    public enum Outcome: Sendable, Hashable {
        /// Serve the representation; `range` is the Range header still in force (nil when absent,
        /// dropped by If-Range, or the method is not GET/HEAD).
        case proceed(range: String?)
        case notModified
        case preconditionFailed
    }

    /// `etag` is the representation's current tag (nil if it has none); `lastModified` is in
    /// whole epoch seconds, so comparing with second-resolution HTTP-dates is exact.
    public static func evaluate(method: String, headers h: ConditionalHeaders,
                                etag: EntityTag?, lastModified: Int64) -> Outcome {
        let isGetOrHead = method == "GET" || method == "HEAD"

        // 1. If-Match (strong). A malformed list matches nothing, so it fails.
        if let ifMatch = h.ifMatch {
            guard listMatches(ifMatch, etag: etag, weakComparison: false) else { return .preconditionFailed }
        } else if let ius = h.ifUnmodifiedSince, let date = HTTPDate.parse(ius), lastModified > date {
            // 2. If-Unmodified-Since, only without If-Match; an unparseable date is ignored.
            return .preconditionFailed
        }

        // 3. If-None-Match (weak). Present but malformed counts as "no match" and still shadows IMS.
        if let ifNoneMatch = h.ifNoneMatch {
            if listMatches(ifNoneMatch, etag: etag, weakComparison: true) {
                return isGetOrHead ? .notModified : .preconditionFailed
            }
        } else if isGetOrHead, let ims = h.ifModifiedSince, let date = HTTPDate.parse(ims), lastModified <= date {
            // 4. If-Modified-Since, only without If-None-Match and only for GET/HEAD.
            return .notModified
        }

        // 5. Range applies only to GET (HEAD mirrors GET), and only if If-Range passes.
        guard isGetOrHead, let range = h.range else { return .proceed(range: nil) }
        if let ifRange = h.ifRange, !ifRangePasses(ifRange, etag: etag, lastModified: lastModified) {
            return .proceed(range: nil)
        }
        return .proceed(range: range)
    }

    /// `*` matches any current representation, even one without a tag; a malformed list nothing.
    static func listMatches(_ header: String, etag: EntityTag?, weakComparison: Bool) -> Bool {
        switch EntityTagList.parse(header) {
        case .any?: true
        case .tags(let tags)?: etag.map { EntityTagList.tags(tags).matches($0, weakComparison: weakComparison) } ?? false
        case nil: false
        }
    }

    /// An entity tag needs a strong match; otherwise the value must be an HTTP-date equal to
    /// Last-Modified. Anything unparseable fails, which drops the Range: serving the whole
    /// representation is always correct, splicing a stale range is not (RFC 9110 §13.1.5).
    static func ifRangePasses(_ value: String, etag: EntityTag?, lastModified: Int64) -> Bool {
        let trimmed = value.drop { $0 == " " || $0 == "\t" }
        if trimmed.hasPrefix("\"") || trimmed.hasPrefix("W/") {
            guard let tag = EntityTag.parse(trimmed), let etag else { return false }
            return tag.strongMatches(etag)
        }
        return HTTPDate.parse(value) == lastModified
    }
}

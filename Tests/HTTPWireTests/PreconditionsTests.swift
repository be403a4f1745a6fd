import CivilTime
import Testing
@testable import HTTPWire

/// Rows of http-edge-cases.md §1–§2 (Go TestServeContent) and SPEC §4.3, at the Outcome level.
@Suite struct PreconditionsTests {
    static let t: Int64 = 1_700_000_000
    static func date(_ s: Int64) -> String { HTTPDate.format(epochSeconds: s) }

    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        var etag: String = "\"foo\""
        var headers: ConditionalHeaders
        var expected: Preconditions.Outcome
        var testDescription: String { name }
    }

    static let rows: [Row] = [
        Row(name: "not_modified_modtime", headers: .init(ifModifiedSince: date(t)), expected: .notModified),
        Row(name: "ims_later_date", headers: .init(ifModifiedSince: date(t + 3600)), expected: .notModified),
        Row(name: "ims_earlier_date_is_modified", headers: .init(ifModifiedSince: date(t - 1)), expected: .proceed(range: nil)),
        Row(name: "ims_invalid_date_ignored", headers: .init(ifModifiedSince: "yesterday"), expected: .proceed(range: nil)),
        Row(name: "not_modified_etag", headers: .init(ifNoneMatch: "\"foo\""), expected: .notModified),
        Row(name: "not_modified_etag_no_seek_weak_list", etag: "W/\"foo\"", headers: .init(ifNoneMatch: "\"baz\", W/\"foo\""), expected: .notModified),
        Row(name: "if_none_match_mismatch_case_sensitive", headers: .init(ifNoneMatch: "\"Foo\""), expected: .proceed(range: nil)),
        Row(name: "if_none_match_malformed", headers: .init(ifNoneMatch: ","), expected: .proceed(range: nil)),
        Row(name: "if_none_match_star", headers: .init(ifNoneMatch: "*"), expected: .notModified),
        Row(name: "inm_wins_over_ims_RFC9111_4_3_2", headers: .init(ifNoneMatch: "\"other\"", ifModifiedSince: date(t)), expected: .proceed(range: nil)),
        Row(name: "malformed_inm_still_shadows_ims", headers: .init(ifNoneMatch: "\"a\" junk", ifModifiedSince: date(t)), expected: .proceed(range: nil)),
        Row(name: "ifmatch_matches", etag: "\"A\"", headers: .init(ifMatch: "\"Z\", \"A\""), expected: .proceed(range: nil)),
        Row(name: "ifmatch_star", etag: "\"A\"", headers: .init(ifMatch: "*"), expected: .proceed(range: nil)),
        Row(name: "ifmatch_failed", etag: "\"A\"", headers: .init(ifMatch: "\"B\""), expected: .preconditionFailed),
        Row(name: "ifmatch_fails_on_weak_etag", etag: "W/\"A\"", headers: .init(ifMatch: "W/\"A\""), expected: .preconditionFailed),
        Row(name: "ifmatch_malformed_fails", etag: "\"A\"", headers: .init(ifMatch: "A"), expected: .preconditionFailed),
        Row(name: "ifmatch_checked_before_inm", etag: "\"A\"", headers: .init(ifMatch: "\"B\"", ifNoneMatch: "\"A\""), expected: .preconditionFailed),
        Row(name: "ifmatch_shadows_ius", etag: "\"A\"", headers: .init(ifMatch: "\"A\"", ifUnmodifiedSince: date(t - 2)), expected: .proceed(range: nil)),
        Row(name: "if_unmodified_since_true", headers: .init(ifUnmodifiedSince: date(t)), expected: .proceed(range: nil)),
        Row(name: "if_unmodified_since_false", headers: .init(ifUnmodifiedSince: date(t - 2)), expected: .preconditionFailed),
        Row(name: "ius_invalid_date_ignored", headers: .init(ifUnmodifiedSince: "Sun, 06 Nov 1994 25:49:37 GMT"), expected: .proceed(range: nil)),
        Row(name: "ius_passes_then_inm_matches", headers: .init(ifNoneMatch: "\"foo\"", ifUnmodifiedSince: date(t)), expected: .notModified),
        Row(name: "range_kept_without_if_range", headers: .init(range: "bytes=0-4"), expected: .proceed(range: "bytes=0-4")),
        Row(name: "range_match", etag: "\"A\"", headers: .init(ifRange: "\"A\"", range: "bytes=0-4"), expected: .proceed(range: "bytes=0-4")),
        Row(name: "range_match_weak_etag", etag: "W/\"A\"", headers: .init(ifRange: "W/\"A\"", range: "bytes=0-4"), expected: .proceed(range: nil)),
        Row(name: "range_no_match", etag: "\"A\"", headers: .init(ifRange: "\"B\"", range: "bytes=0-4"), expected: .proceed(range: nil)),
        Row(name: "range_with_modtime", headers: .init(ifRange: date(t), range: "bytes=0-4"), expected: .proceed(range: "bytes=0-4")),
        Row(name: "range_with_modtime_mismatch", headers: .init(ifRange: date(t + 1), range: "bytes=0-4"), expected: .proceed(range: nil)),
        Row(name: "range_with_earlier_date_mismatch", headers: .init(ifRange: date(t - 1), range: "bytes=0-4"), expected: .proceed(range: nil)),
        Row(name: "if_range_garbage_drops_range", headers: .init(ifRange: "soon", range: "bytes=0-4"), expected: .proceed(range: nil)),
        Row(name: "if_range_without_range_is_moot", headers: .init(ifRange: "\"foo\""), expected: .proceed(range: nil)),
        Row(name: "not_modified_beats_range", headers: .init(ifNoneMatch: "\"foo\"", range: "bytes=0-4"), expected: .notModified),
    ]

    @Test(arguments: rows, ["GET", "HEAD"])
    func conditionalTable_GoServeContent_SPEC4_3(_ row: Row, _ method: String) {
        let outcome = Preconditions.evaluate(method: method, headers: row.headers, etag: EntityTag.parse(row.etag), lastModified: Self.t)
        #expect(outcome == row.expected)
    }

    @Test func ifNoneMatchStar_otherMethods_is412_SPEC4_3() {
        let h = ConditionalHeaders(ifNoneMatch: "*")
        #expect(Preconditions.evaluate(method: "PUT", headers: h, etag: EntityTag(opaque: "a"), lastModified: Self.t) == .preconditionFailed)
        #expect(Preconditions.evaluate(method: "POST", headers: .init(ifNoneMatch: "\"a\""), etag: EntityTag(opaque: "a"), lastModified: Self.t) == .preconditionFailed)
    }

    @Test func otherMethods_ignoreIMSAndRange_RFC9110_14_2() {
        let h = ConditionalHeaders(ifModifiedSince: Self.date(Self.t), range: "bytes=0-1")
        #expect(Preconditions.evaluate(method: "POST", headers: h, etag: nil, lastModified: Self.t) == .proceed(range: nil))
    }

    @Test func starMatches_evenWithoutAnETag() {
        #expect(Preconditions.evaluate(method: "GET", headers: .init(ifMatch: "*"), etag: nil, lastModified: Self.t) == .proceed(range: nil))
        #expect(Preconditions.evaluate(method: "GET", headers: .init(ifMatch: "\"a\""), etag: nil, lastModified: Self.t) == .preconditionFailed)
    }
}

import CivilTime
import Testing

struct CivilTimeTests {
    @Test("days since the epoch and back", arguments: [
        (0, CivilDate(year: 1970, month: 1, day: 1)),
        (-1, CivilDate(year: 1969, month: 12, day: 31)),
        (11_016, CivilDate(year: 2000, month: 2, day: 29)),
        (20_513, CivilDate(year: 2026, month: 3, day: 1)),
        (-719_468, CivilDate(year: 0, month: 3, day: 1)),
        (2_932_896, CivilDate(year: 9999, month: 12, day: 31)),
    ] as [(Int64, CivilDate)])
    func civilDate_roundTrips(_ days: Int64, _ date: CivilDate) {
        #expect(CivilDate(daysSinceEpoch: days) == date)
        #expect(date.daysSinceEpoch == days)
    }

    @Test func civilDate_validity() {
        #expect(CivilDate(year: 2024, month: 2, day: 29).isValid)
        #expect(!CivilDate(year: 2026, month: 2, day: 29).isValid)
        #expect(!CivilDate(year: 1900, month: 2, day: 29).isValid)
        #expect(!CivilDate(year: 2026, month: 4, day: 31).isValid)
        #expect(!CivilDate(year: 2026, month: 13, day: 1).isValid)
    }

    @Test func rfc3339_formatsMillisecondsUTC_SPEC3() {
        #expect(RFC3339.format(milliseconds: 0) == "1970-01-01T00:00:00.000Z")
        #expect(RFC3339.format(milliseconds: 1_763_719_200_123) == "2025-11-21T10:00:00.123Z")
        #expect(RFC3339.format(milliseconds: -1) == "1969-12-31T23:59:59.999Z")
        #expect(RFC3339.day(milliseconds: 1_763_719_200_123) == "2025-11-21")
    }

    @Test("RFC 3339 date-times", arguments: [
        ("2025-11-21T10:00:00Z", 1_763_719_200_000),
        ("2025-11-21t10:00:00.1239z", 1_763_719_200_123),
        ("2025-11-21T11:30:00+01:30", 1_763_719_200_000),
        ("2025-11-21T08:00:00.5-02:00", 1_763_719_200_500),
        ("2016-12-31T23:59:60Z", 1_483_228_799_000),   // leap second counted as :59
        ("2025-11-21T10:00:00", nil), ("2025-11-21 10:00:00Z", nil), ("2025-02-29T10:00:00Z", nil),
        ("2025-11-21T24:00:00Z", nil), ("2025-11-21T10:00:00.Z", nil), ("2025-11-21T10:00:00+0100", nil),
        ("2025-11-21T10:00:00Zx", nil), ("", nil),
    ] as [(String, Int64?)])
    func rfc3339_parses(_ text: String, _ expected: Int64?) {
        #expect(RFC3339.parse(text) == expected)
    }

    @Test("zero-padded decimals", arguments: [
        (Int64(0), 1, "0"), (7, 3, "007"), (1234, 2, "1234"), (-42, 4, "-0042"), (59, 0, "59"),
        (Int64.max, 1, "9223372036854775807"), (5, 22, String(repeating: "0", count: 21) + "5"),
    ])
    func rfc3339_appendPadded(value: Int64, width: Int, expected: String) {
        var out = Array("x".utf8)
        RFC3339.appendPadded(value, width: width, to: &out)
        #expect(String(decoding: out, as: UTF8.self) == "x" + expected)
    }

    @Test func rfc3339_days() {
        #expect(RFC3339.parseDay("2025-11-21") == 1_763_683_200_000)
        #expect(RFC3339.parseDay("2025-11-31") == nil)
        #expect(RFC3339.parseDay("2025-11-2") == nil)
        #expect(RFC3339.parseDay("2025-11-21T") == nil)
    }
}

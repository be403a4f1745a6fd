import CivilTime

/// The event store's instants in its own words (client `ts`, `received_at`, day directories),
/// all spelled by the shared CivilTime arithmetic.
enum EventTime {
    /// `YYYY-MM-DDTHH:MM:SS[.frac](Z|±HH:MM)`, case-insensitive T and Z, fields in range (second 60 for leap seconds).
    static func isRFC3339(_ s: String) -> Bool { RFC3339.parse(s) != nil }

    /// `YYYY-MM-DD` of a UTC instant in epoch milliseconds: the day directory name.
    static func day(ms: Int64) -> String { RFC3339.day(milliseconds: ms) }

    /// `YYYY-MM-DDTHH:MM:SS.mmmZ` (RFC 3339 UTC with milliseconds, as SPEC §3 writes instants).
    static func format(ms: Int64) -> String { RFC3339.format(milliseconds: ms) }

    /// Parses `YYYY-MM-DD` into the epoch milliseconds of its UTC midnight.
    static func parseDay(_ s: String) -> Int64? { RFC3339.parseDay(s) }

    /// Epoch milliseconds of a `received_at` as `format(ms:)` writes it.
    static func parseMillis(_ s: String) -> Int64? { RFC3339.parse(s) }
}

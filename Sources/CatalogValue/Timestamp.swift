import CivilTime
#if canImport(Glibc)
import Glibc
#endif

/// A UTC instant in milliseconds since the Unix epoch, written as RFC 3339 with milliseconds
/// (`2026-11-21T10:00:00.000Z`, SPEC §3), via the shared CivilTime arithmetic: no DateFormatter/ICU.
public struct Timestamp: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let millisecondsSinceEpoch: Int64

    public init(millisecondsSinceEpoch: Int64) { self.millisecondsSinceEpoch = millisecondsSinceEpoch }

    public static func now() -> Timestamp {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Timestamp(millisecondsSinceEpoch: Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000)
    }

    public static func < (a: Timestamp, b: Timestamp) -> Bool { a.millisecondsSinceEpoch < b.millisecondsSinceEpoch }

    public func adding(days: Int) -> Timestamp {
        Timestamp(millisecondsSinceEpoch: millisecondsSinceEpoch + Int64(days) * 86_400_000)
    }

    /// `YYYY-MM-DDTHH:MM:SS.mmmZ`
    public var rfc3339: String { RFC3339.format(milliseconds: millisecondsSinceEpoch) }

    public var description: String { rfc3339 }

    /// Parses RFC 3339 `date-time` (`Z` or `±HH:MM`, optional fraction, truncated to ms).
    public init?(rfc3339 text: String) {
        guard let ms = RFC3339.parse(text) else { return nil }
        millisecondsSinceEpoch = ms
    }

    public init?(rfc3339UTF8 text: UnsafeBufferPointer<UInt8>) {
        guard let ms = RFC3339.parse(utf8: text) else { return nil }
        millisecondsSinceEpoch = ms
    }
}

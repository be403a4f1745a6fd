#if canImport(Glibc)
import Glibc
#endif

/// A UTC instant in milliseconds since the Unix epoch, written as RFC 3339 with milliseconds
/// (`2026-11-21T10:00:00.000Z`, SPEC §3). Hand-rolled civil-date arithmetic: no DateFormatter/ICU.
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
    public var rfc3339: String {
        let ms = millisecondsSinceEpoch
        let days = ms >= 0 ? ms / 86_400_000 : (ms - 86_399_999) / 86_400_000
        let msOfDay = ms - days * 86_400_000
        let (y, m, d) = Self.civil(fromDays: days)
        var out = [UInt8]()
        out.reserveCapacity(24)
        func put(_ v: Int64, _ width: Int) {
            var digits = [UInt8](repeating: UInt8(ascii: "0"), count: width)
            var v = v
            for i in stride(from: width - 1, through: 0, by: -1) {
                digits[i] = UInt8(ascii: "0") + UInt8(v % 10)
                v /= 10
            }
            out += digits
        }
        put(y, 4); out.append(UInt8(ascii: "-")); put(m, 2); out.append(UInt8(ascii: "-")); put(d, 2)
        out.append(UInt8(ascii: "T"))
        put(msOfDay / 3_600_000, 2); out.append(UInt8(ascii: ":"))
        put(msOfDay / 60_000 % 60, 2); out.append(UInt8(ascii: ":"))
        put(msOfDay / 1000 % 60, 2); out.append(UInt8(ascii: "."))
        put(msOfDay % 1000, 3); out.append(UInt8(ascii: "Z"))
        return String(decoding: out, as: UTF8.self)
    }

    public var description: String { rfc3339 }

    /// Parses RFC 3339 `date-time` (`Z` or `±HH:MM`, optional fraction, truncated to ms).
    public init?(rfc3339 text: String) {
        let b = Array(text.utf8)
        var i = 0
        func num(_ n: Int) -> Int64? {
            guard i + n <= b.count else { return nil }
            var v: Int64 = 0
            for k in i..<(i + n) {
                guard b[k] >= 48, b[k] <= 57 else { return nil }
                v = v * 10 + Int64(b[k] - 48)
            }
            i += n
            return v
        }
        func lit(_ c: Character) -> Bool {
            guard i < b.count, b[i] == c.asciiValue! else { return false }
            i += 1
            return true
        }
        guard let y = num(4), lit("-"), let mo = num(2), lit("-"), let d = num(2) else { return nil }
        guard i < b.count, b[i] == UInt8(ascii: "T") || b[i] == UInt8(ascii: "t") else { return nil }
        i += 1
        guard let h = num(2), lit(":"), let mi = num(2), lit(":"), let s = num(2) else { return nil }
        guard (1...12).contains(mo), d >= 1, d <= Self.daysIn(month: mo, year: y), h < 24, mi < 60, s < 61 else { return nil }
        var frac: Int64 = 0
        if lit(".") {
            var n = 0
            while i < b.count, b[i] >= 48, b[i] <= 57 {
                if n < 3 { frac = frac * 10 + Int64(b[i] - 48) }
                n += 1
                i += 1
            }
            guard n > 0 else { return nil }
            var k = n
            while k < 3 { frac *= 10; k += 1 }
        }
        var offset: Int64 = 0
        if i < b.count, b[i] == UInt8(ascii: "Z") || b[i] == UInt8(ascii: "z") {
            i += 1
        } else if i < b.count, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") {
            let sign: Int64 = b[i] == UInt8(ascii: "+") ? 1 : -1
            i += 1
            guard let oh = num(2), lit(":"), let om = num(2), oh < 24, om < 60 else { return nil }
            offset = sign * (oh * 60 + om) * 60_000
        } else {
            return nil
        }
        guard i == b.count else { return nil }
        let days = Self.days(fromCivil: y, mo, d)
        millisecondsSinceEpoch = days * 86_400_000 + h * 3_600_000 + mi * 60_000 + min(s, 59) * 1000 + frac - offset
    }

    static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    // Howard Hinnant's days_from_civil / civil_from_days.
    static func days(fromCivil y0: Int64, _ m: Int64, _ d: Int64) -> Int64 {
        let y = m <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func civil(fromDays z0: Int64) -> (Int64, Int64, Int64) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (m <= 2 ? yoe + era * 400 + 1 : yoe + era * 400, m, d)
    }
}

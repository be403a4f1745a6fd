/// RFC 3339 date-times: validation of client `ts` and formatting of the server's `received_at`.
enum Timestamp {
    /// `YYYY-MM-DDTHH:MM:SS[.frac](Z|±HH:MM)`, case-insensitive T and Z, fields in range (second 60 for leap seconds).
    static func isRFC3339(_ s: String) -> Bool {
        var s = s
        return s.withUTF8 { isRFC3339(utf8: $0) }
    }

    private static func isRFC3339(utf8 b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard b.count >= 20 else { return false }
        func num(_ at: Int, _ n: Int) -> Int? {
            guard at + n <= b.count else { return nil }
            var v = 0
            for c in b[at..<at + n] {
                guard (48...57).contains(c) else { return nil }
                v = v * 10 + Int(c - 48)
            }
            return v
        }
        guard let year = num(0, 4), b[4] == UInt8(ascii: "-"), let month = num(5, 2), b[7] == UInt8(ascii: "-"),
              let day = num(8, 2), b[10] | 0x20 == UInt8(ascii: "t"), let hour = num(11, 2), b[13] == UInt8(ascii: ":"),
              let minute = num(14, 2), b[16] == UInt8(ascii: ":"), let second = num(17, 2) else { return false }
        guard (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day),
              hour < 24, minute < 60, second <= 60 else { return false }
        var i = 19
        if b[i] == UInt8(ascii: ".") {
            i += 1
            let fracStart = i
            while i < b.count, (48...57).contains(b[i]) { i += 1 }
            guard i > fracStart, i < b.count else { return false }
        }
        if b[i] | 0x20 == UInt8(ascii: "z") { return i + 1 == b.count }
        guard b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-"), i + 6 == b.count,
              let oh = num(i + 1, 2), b[i + 3] == UInt8(ascii: ":"), let om = num(i + 4, 2) else { return false }
        return oh < 24 && om < 60
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Civil date of a day count since 1970-01-01 (Howard Hinnant's algorithm).
    static func civil(days: Int64) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (Int(yoe + era * 400 + (m <= 2 ? 1 : 0)), Int(m), Int(d))
    }

    /// Day count since 1970-01-01 of a civil date (inverse of `civil`).
    static func days(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = Int64(month > 2 ? month - 3 : month + 9)
        let doy = (153 * mp + 2) / 5 + Int64(day) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    private static func pad(_ v: Int, _ width: Int) -> String {
        let s = String(v)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }

    /// `YYYY-MM-DD` of a UTC instant in epoch milliseconds: the day directory name.
    static func day(ms: Int64) -> String {
        let d = civil(days: floorDiv(ms, 86_400_000))
        return "\(pad(d.year, 4))-\(pad(d.month, 2))-\(pad(d.day, 2))"
    }

    /// `YYYY-MM-DDTHH:MM:SS.mmmZ` (RFC 3339 UTC with milliseconds, as SPEC §3 writes instants).
    static func format(ms: Int64) -> String {
        let inDay = ms - floorDiv(ms, 86_400_000) * 86_400_000
        let secs = Int(inDay / 1000)
        return "\(day(ms: ms))T\(pad(secs / 3600, 2)):\(pad(secs / 60 % 60, 2)):\(pad(secs % 60, 2)).\(pad(Int(inDay % 1000), 3))Z"
    }

    /// Parses `YYYY-MM-DD` into the epoch milliseconds of its UTC midnight.
    static func parseDay(_ s: String) -> Int64? {
        let b = Array(s.utf8)
        guard b.count == 10, b[4] == UInt8(ascii: "-"), b[7] == UInt8(ascii: "-") else { return nil }
        func num(_ r: Range<Int>) -> Int? {
            var v = 0
            for c in b[r] { guard (48...57).contains(c) else { return nil }; v = v * 10 + Int(c - 48) }
            return v
        }
        guard let y = num(0..<4), let m = num(5..<7), let d = num(8..<10), (1...12).contains(m),
              (1...daysIn(month: m, year: y)).contains(d) else { return nil }
        return days(year: y, month: m, day: d) * 86_400_000
    }

    static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }
}

extension Timestamp {
    /// Epoch milliseconds of a `received_at` as `format(ms:)` writes it.
    static func parseMillis(_ s: String) -> Int64? {
        let b = Array(s.utf8)
        guard b.count == 24, b[10] == UInt8(ascii: "T"), b[13] == UInt8(ascii: ":"), b[16] == UInt8(ascii: ":"),
              b[19] == UInt8(ascii: "."), b[23] == UInt8(ascii: "Z"), let midnight = parseDay(String(decoding: b[0..<10], as: UTF8.self))
        else { return nil }
        var fields: [Int64] = []
        for r in [11..<13, 14..<16, 17..<19, 20..<23] {
            var v: Int64 = 0
            for c in b[r] { guard (48...57).contains(c) else { return nil }; v = v * 10 + Int64(c - 48) }
            fields.append(v)
        }
        return midnight + ((fields[0] * 60 + fields[1]) * 60 + fields[2]) * 1000 + fields[3]
    }
}

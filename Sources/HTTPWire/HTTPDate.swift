// IMF-fixdate (RFC 9110 §5.6.7): formatting for Date/Last-Modified, parsing of the three
// accepted forms for If-Modified-Since and friends. Pure arithmetic: no DateFormatter, no locale.

public enum HTTPDate {
    private static let dayNames = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]  // 1970-01-01 was a Thursday
    private static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// "Sun, 06 Nov 1994 08:49:37 GMT" for whole seconds since the Unix epoch.
    public static func format(epochSeconds: Int64) -> String {
        let days = floorDiv(epochSeconds, 86_400)
        let secs = epochSeconds - days * 86_400
        let (y, m, d) = civil(fromDays: days)
        let wd = Int(((days % 7) + 7) % 7)
        func two(_ v: Int64) -> String { v < 10 ? "0\(v)" : "\(v)" }
        var year = "\(y)"
        while year.count < 4 { year = "0" + year }
        return "\(dayNames[wd]), \(two(d)) \(monthNames[Int(m) - 1]) \(year) \(two(secs / 3600)):\(two(secs / 60 % 60)):\(two(secs % 60)) GMT"
    }

    /// Seconds since the epoch, or nil when the text is none of IMF-fixdate, RFC 850 or asctime.
    public static func parse(_ text: String) -> Int64? {
        let parts = text.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        var day: Int64?, month: Int?, year: Int64?, time: String?
        if parts.count == 6, parts[0].hasSuffix(","), parts[5] == "GMT" {          // IMF-fixdate
            day = Int64(parts[1]); month = monthIndex(parts[2]); year = Int64(parts[3]); time = parts[4]
            guard parts[1].count == 2, parts[3].count == 4 else { return nil }
        } else if parts.count == 4, parts[0].hasSuffix(","), parts[3] == "GMT" {   // RFC 850
            let dmy = parts[1].split(separator: "-").map(String.init)
            guard dmy.count == 3, let yy = Int64(dmy[2]), dmy[2].count == 2 else { return nil }
            day = Int64(dmy[0]); month = monthIndex(dmy[1]); time = parts[2]
            year = yy < 70 ? 2000 + yy : 1900 + yy
        } else if parts.count == 5 {                                                  // asctime
            month = monthIndex(parts[1]); day = Int64(parts[2]); time = parts[3]; year = Int64(parts[4])
        }
        guard let d = day, let m = month, let y = year, let t = time, (1...31).contains(d) else { return nil }
        let hms = t.split(separator: ":").map { Int64($0) }
        guard hms.count == 3, let h = hms[0], let mi = hms[1], let s = hms[2],
              (0...23).contains(h), (0...59).contains(mi), (0...60).contains(s) else { return nil }
        return days(fromCivil: y, Int64(m), d) * 86_400 + h * 3600 + mi * 60 + s
    }

    private static func monthIndex(_ s: String) -> Int? { monthNames.firstIndex(of: s).map { $0 + 1 } }

    private static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 { a >= 0 ? a / b : -((-a + b - 1) / b) }

    // Howard Hinnant's days_from_civil / civil_from_days.
    static func days(fromCivil y0: Int64, _ m: Int64, _ d: Int64) -> Int64 {
        let y = m <= 2 ? y0 - 1 : y0
        let era = floorDiv(y, 400)
        let yoe = y - era * 400
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func civil(fromDays z0: Int64) -> (Int64, Int64, Int64) {
        let z = z0 + 719_468
        let era = floorDiv(z, 146_097)
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (m <= 2 ? yoe + era * 400 + 1 : yoe + era * 400, m, d)
    }
}

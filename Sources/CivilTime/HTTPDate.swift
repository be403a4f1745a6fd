// IMF-fixdate (RFC 9110 §5.6.7): formatting for Date/Last-Modified, parsing of the three
// accepted forms for If-Modified-Since and friends, and for the client's Retry-After. Pure
// arithmetic: no DateFormatter, no locale (the client links it on Apple platforms too).

public enum HTTPDate {
    private static let dayNames = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]  // 1970-01-01 was a Thursday
    private static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// "Sun, 06 Nov 1994 08:49:37 GMT" for whole seconds since the Unix epoch.
    public static func format(epochSeconds: Int64) -> String {
        let days = floorDivide(epochSeconds, 86_400)
        let secs = epochSeconds - days * 86_400
        let date = CivilDate(daysSinceEpoch: days)
        let wd = Int(((days % 7) + 7) % 7)
        func two(_ v: Int64) -> String { v < 10 ? "0\(v)" : "\(v)" }
        var year = "\(date.year)"
        while year.count < 4 { year = "0" + year }
        return "\(dayNames[wd]), \(two(date.day)) \(monthNames[Int(date.month) - 1]) \(year) \(two(secs / 3600)):\(two(secs / 60 % 60)):\(two(secs % 60)) GMT"
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
        return CivilDate(year: y, month: Int64(m), day: d).daysSinceEpoch * 86_400 + h * 3600 + mi * 60 + s
    }

    private static func monthIndex(_ s: String) -> Int? { monthNames.firstIndex(of: s).map { $0 + 1 } }
}

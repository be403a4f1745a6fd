/// RFC 3339 instants as epoch milliseconds: the `YYYY-MM-DDTHH:MM:SS.mmmZ` form SPEC §3 writes,
/// the `date-time` grammar clients may send, and `YYYY-MM-DD` days. Bytes in, bytes out: no
/// DateFormatter, no locale, no allocation when appending.
public enum RFC3339 {
    private static let msPerDay: Int64 = 86_400_000

    /// Appends `YYYY-MM-DDTHH:MM:SS.mmmZ` (UTC) for `milliseconds` since the epoch.
    public static func append(milliseconds ms: Int64, to out: inout [UInt8]) {
        let inDay = ms - floorDivide(ms, msPerDay) * msPerDay
        appendDay(milliseconds: ms, to: &out)
        out.append(UInt8(ascii: "T"))
        appendPadded(inDay / 3_600_000, width: 2, to: &out)
        out.append(UInt8(ascii: ":"))
        appendPadded(inDay / 60_000 % 60, width: 2, to: &out)
        out.append(UInt8(ascii: ":"))
        appendPadded(inDay / 1000 % 60, width: 2, to: &out)
        out.append(UInt8(ascii: "."))
        appendPadded(inDay % 1000, width: 3, to: &out)
        out.append(UInt8(ascii: "Z"))
    }

    /// Appends the UTC day `YYYY-MM-DD` of `milliseconds` since the epoch.
    public static func appendDay(milliseconds ms: Int64, to out: inout [UInt8]) {
        let d = CivilDate(daysSinceEpoch: floorDivide(ms, msPerDay))
        appendPadded(d.year, width: 4, to: &out)
        out.append(UInt8(ascii: "-"))
        appendPadded(d.month, width: 2, to: &out)
        out.append(UInt8(ascii: "-"))
        appendPadded(d.day, width: 2, to: &out)
    }

    public static func format(milliseconds ms: Int64) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(24)
        append(milliseconds: ms, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    public static func day(milliseconds ms: Int64) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(10)
        appendDay(milliseconds: ms, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Epoch milliseconds of an RFC 3339 `date-time` (`T`/`Z` in either case, optional fraction
    /// truncated to milliseconds, `Z` or `±HH:MM`), or nil when the text is not one. A leap second
    /// (:60) is accepted and counted as :59.
    public static func parse(_ text: String) -> Int64? {
        var text = text
        return text.withUTF8 { parse(utf8: $0) }
    }

    public static func parse(utf8 b: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard b.count >= 20, let date = civilDate(b), b[10] | 0x20 == UInt8(ascii: "t"),
              let h = number(b, 11, 2), b[13] == UInt8(ascii: ":"), let mi = number(b, 14, 2), b[16] == UInt8(ascii: ":"),
              let s = number(b, 17, 2), h < 24, mi < 60, s <= 60 else { return nil }
        var i = 19
        var fraction: Int64 = 0
        if b[i] == UInt8(ascii: ".") {
            i += 1
            let start = i
            while i < b.count, (48...57).contains(b[i]) {
                if i - start < 3 { fraction = fraction * 10 + Int64(b[i] - 48) }
                i += 1
            }
            guard i > start, i < b.count else { return nil }
            for _ in min(i - start, 3)..<3 { fraction *= 10 }
        }
        var offset: Int64 = 0
        if b[i] | 0x20 == UInt8(ascii: "z") {
            guard i + 1 == b.count else { return nil }
        } else {
            guard b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-"), i + 6 == b.count,
                  let oh = number(b, i + 1, 2), b[i + 3] == UInt8(ascii: ":"), let om = number(b, i + 4, 2),
                  oh < 24, om < 60 else { return nil }
            offset = (b[i] == UInt8(ascii: "+") ? 1 : -1) * (oh * 60 + om) * 60_000
        }
        return date.daysSinceEpoch * msPerDay + h * 3_600_000 + mi * 60_000 + min(s, 59) * 1000 + fraction - offset
    }

    /// Epoch milliseconds of the UTC midnight starting day `YYYY-MM-DD`, or nil.
    public static func parseDay(_ text: some StringProtocol) -> Int64? {
        var text = String(text)
        return text.withUTF8 { b in b.count == 10 ? civilDate(b).map { $0.daysSinceEpoch * msPerDay } : nil }
    }

    /// The valid date `YYYY-MM-DD` at the start of `b`.
    private static func civilDate(_ b: UnsafeBufferPointer<UInt8>) -> CivilDate? {
        guard let y = number(b, 0, 4), b[4] == UInt8(ascii: "-"), let m = number(b, 5, 2), b[7] == UInt8(ascii: "-"),
              let d = number(b, 8, 2) else { return nil }
        let date = CivilDate(year: y, month: m, day: d)
        return date.isValid ? date : nil
    }

    private static func number(_ b: UnsafeBufferPointer<UInt8>, _ at: Int, _ count: Int) -> Int64? {
        guard at + count <= b.count else { return nil }
        var v: Int64 = 0
        for c in b[at..<at + count] {
            guard (48...57).contains(c) else { return nil }
            v = v * 10 + Int64(c - 48)
        }
        return v
    }

    /// Decimal digits of `value`, zero-padded on the left to `width`.
    public static func appendPadded(_ value: Int64, width: Int, to out: inout [UInt8]) {
        var v = value
        if v < 0 { out.append(UInt8(ascii: "-")); v = -v }
        // Digits go right to left into a stack buffer, then one copy: appending then reversing
        // a slice of `out` copied the slice, and the access log formats several numbers a line.
        let capacity = max(20, width)
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { buffer in
            var i = capacity
            repeat {
                i -= 1
                buffer[i] = UInt8(ascii: "0") + UInt8(v % 10)
                v /= 10
            } while v > 0
            while capacity - i < width {
                i -= 1
                buffer[i] = UInt8(ascii: "0")
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[i...]))
        }
    }
}

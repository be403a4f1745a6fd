/// Whole US cents. Every printed line is a `Money`; totals add rounded lines (SPEC §7.2).
public struct Money: Comparable, Hashable, Sendable, CustomStringConvertible {
    public var cents: Int64

    public init(cents: Int64) { self.cents = cents }

    public static let zero = Money(cents: 0)

    /// Rounds a non-negative amount `numerator / denominator` cents half-up to whole cents.
    static func roundingHalfUp(cents numerator: Int128, over denominator: Int128) -> Money {
        Money(cents: Int64((2 * numerator + denominator) / (2 * denominator)))
    }

    public static func + (a: Money, b: Money) -> Money { Money(cents: a.cents + b.cents) }
    public static func < (a: Money, b: Money) -> Bool { a.cents < b.cents }

    /// Dollars with two decimals, e.g. `450.00` (also a valid JSON number).
    public var description: String { FixedPoint.format(Int128(cents), over: 100, places: 2) }
}

/// A price in nano-dollars (10^-9 USD): every published price (e.g. $0.0004 per 1,000
/// requests = $0.40/M, $0.085/GB) is an exact integer in this unit, so no binary floating
/// point error reaches a bill.
public struct Rate: Comparable, Hashable, Sendable, CustomStringConvertible {
    public var nanoUSD: Int64

    public init(nanoUSD: Int64) { self.nanoUSD = nanoUSD }

    /// Parses a plain decimal such as `0.085` or `5`; nil for exponents, signs, more than
    /// 9 decimals, or values too large.
    public init?(decimal text: String) {
        guard let value = FixedPoint.parse(text, places: 9), value <= Int128(Int64.max) else { return nil }
        nanoUSD = Int64(value)
    }

    public static func < (a: Rate, b: Rate) -> Bool { a.nanoUSD < b.nanoUSD }

    /// The dollar amount with trailing zeros dropped, e.g. `0.0004`.
    public var description: String { FixedPoint.trimmed(FixedPoint.format(Int128(nanoUSD), over: 1_000_000_000, places: 9)) }
}

/// Decimal text ⇄ scaled integers, rounding half-up.
enum FixedPoint {
    /// `"12.345"` with `places` 9 → 12_345_000_000. Non-negative plain decimals only.
    static func parse(_ text: String, places: Int) -> Int128? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let whole = parts.first, !whole.isEmpty, whole.count <= 20,
              whole.allSatisfy(\.isASCIIDigitChar) else { return nil }
        var value = Int128(whole)!
        var fraction = parts.count == 2 ? String(parts[1]) : ""
        guard parts.count == 1 || !fraction.isEmpty, fraction.count <= places,
              fraction.allSatisfy(\.isASCIIDigitChar) else { return nil }
        fraction += String(repeating: "0", count: places - fraction.count)
        for _ in 0..<places { value *= 10 }
        return value + (fraction.isEmpty ? 0 : Int128(fraction)!)
    }

    /// `numerator / denominator` (both ≥ 0) with exactly `places` decimals, rounded half-up.
    static func format(_ numerator: Int128, over denominator: Int128, places: Int) -> String {
        var scale: Int128 = 1
        for _ in 0..<places { scale *= 10 }
        let scaled = (2 * numerator * scale + denominator) / (2 * denominator)
        let whole = String(scaled / scale)
        guard places > 0 else { return whole }
        let frac = String(scaled % scale)
        return whole + "." + String(repeating: "0", count: places - frac.count) + frac
    }

    /// Drops trailing fractional zeros: `5000.000000` → `5000`, `0.400` → `0.4`.
    static func trimmed(_ s: String) -> String {
        guard s.contains(".") else { return s }
        var t = Substring(s)
        while t.last == "0" { t = t.dropLast() }
        if t.last == "." { t = t.dropLast() }
        return String(t)
    }
}

extension Character {
    var isASCIIDigitChar: Bool { ("0"..."9").contains(self) }
}

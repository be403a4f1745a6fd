/// A SIZE argument that could not be read.
public struct SizeError: Error, Equatable, CustomStringConvertible {
    public let input: String
    public let reason: String
    public var description: String {
        "invalid size '\(input)': \(reason) (examples: 1048576, 1MB, 1MiB, 512KiB, 5GB, 2TB)"
    }
}

/// Parses SIZE values (SPEC §7.2): a whole number of bytes, optionally followed by a unit.
///
/// Units: `B`, decimal `KB MB GB TB PB` (10^3…10^15) and binary `KiB MiB GiB TiB PiB`
/// (2^10…2^50). The unit is case-insensitive (`mb` = `MB`, `mib` = `MiB`) because no
/// one means millibits on a command line; an `i` always means binary. One space between
/// number and unit is allowed; fractions (`1.5GB`) are accepted when they land on a
/// whole byte. Negative, empty, unknown units and overflow past Int64 are errors.
public enum SizeParser {
    static let units: [String: Int64] = [
        "": 1, "b": 1,
        "kb": 1_000, "mb": 1_000_000, "gb": 1_000_000_000, "tb": 1_000_000_000_000, "pb": 1_000_000_000_000_000,
        "kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40, "pib": 1 << 50,
    ]

    public static func parse(_ input: String) throws(SizeError) -> Int64 {
        let text = input.trimmingASCIISpace()
        guard !text.isEmpty else { throw SizeError(input: input, reason: "empty") }
        let numberEnd = text.firstIndex { !$0.isASCIIDigitChar && $0 != "." } ?? text.endIndex
        let number = String(text[..<numberEnd])
        var unitText = text[numberEnd...]
        if unitText.first == " " { unitText = unitText.dropFirst() }
        guard !number.isEmpty else {
            throw SizeError(input: input, reason: text.hasPrefix("-") ? "must not be negative" : "must start with a number")
        }
        guard let multiplier = units[unitText.lowercased()] else {
            throw SizeError(input: input, reason: "unknown unit '\(unitText)'")
        }
        // Up to 6 decimals of the unit; the product must be a whole number of bytes.
        guard let micros = FixedPoint.parse(number, places: 6) else {
            throw SizeError(input: input, reason: "'\(number)' is not a number")
        }
        let (bytesTimesMillion, overflow) = micros.multipliedReportingOverflow(by: Int128(multiplier))
        guard !overflow, bytesTimesMillion / 1_000_000 <= Int128(Int64.max) else {
            throw SizeError(input: input, reason: "too large")
        }
        guard bytesTimesMillion % 1_000_000 == 0 else {
            throw SizeError(input: input, reason: "not a whole number of bytes")
        }
        return Int64(bytesTimesMillion / 1_000_000)
    }
}

extension StringProtocol {
    func trimmingASCIISpace() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }
}

/// SPEC §7 (v6): a numeric option takes a negative value as written, `--effect -0.1`, in every
/// command of `modelctl` and `modeld-client`. ArgumentParser reads any word that starts with `-`
/// as an option, so it reports the value missing; this rewrites the command line once, before
/// parsing, instead of marking each option `.unconditional`.
public enum NegativeNumbers {
    /// `--name -0.1` becomes `--name=-0.1` (up to a `--`). Only a negative number right after a
    /// long option without `=` is touched: such a word never parsed before (no option is named
    /// by digits and a positional cannot start with `-`), so no command line that worked changes
    /// meaning, and an option left without a value still fails as a usage error.
    public static func attached(_ arguments: [String]) -> [String] {
        var result: [String] = []
        result.reserveCapacity(arguments.count)
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let word = arguments[index]
            if word == "--" {
                result += arguments[index...]
                break
            }
            let next = arguments.index(after: index)
            if isBareLongOption(word), next < arguments.endIndex, isNegativeNumber(arguments[next]) {
                result.append("\(word)=\(arguments[next])")
                index = arguments.index(after: next)
            } else {
                result.append(word)
                index = next
            }
        }
        return result
    }

    static func isBareLongOption(_ word: String) -> Bool {
        word.hasPrefix("--") && word.count > 2 && !word.contains("=")
    }

    /// `-3`, `-0.1`, `-.5`, `-1e-3`: a minus, a digit (or a point and a digit), and a number
    /// Double reads (so not `-inf`, `-nan`, or a size such as `-5MB`).
    static func isNegativeNumber(_ word: String) -> Bool {
        let body = word.utf8.dropFirst()
        guard word.utf8.first == UInt8(ascii: "-"), let first = body.first else { return false }
        let startsNumber = isDigit(first) || (first == UInt8(ascii: ".") && body.dropFirst().first.map(isDigit) == true)
        return startsNumber && Double(word) != nil
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
}

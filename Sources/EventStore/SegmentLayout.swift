import DurableFiles

/// Where segments live (SPEC §5): `<root>/<YYYY-MM-DD>/<instance>-<NNNNNN>.jsonl`, the lock at
/// `<root>/<instance>.lock`, each sealed segment's index beside it as `<segment>.idx`.
/// NNNNNN grows per instance across days, so a segment name is unique without its day.
struct SegmentLayout {
    let root: String
    let instance: String

    var lockPath: String { "\(root)/\(instance).lock" }
    func dayDirectory(_ day: String) -> String { "\(root)/\(day)" }
    func segmentPath(day: String, number: Int) -> String { "\(root)/\(day)/\(segmentName(number))" }

    func segmentName(_ number: Int) -> String {
        let digits = String(number)
        return "\(instance)-\(String(repeating: "0", count: max(0, 6 - digits.count)))\(digits).jsonl"
    }

    /// The segment number when `name` is one of this instance's segments.
    func ownSegmentNumber(_ name: String) -> Int? {
        guard name.hasPrefix(instance + "-"), name.hasSuffix(".jsonl") else { return nil }
        let digits = name.dropFirst(instance.count + 1).dropLast(6)
        guard digits.count >= 6, digits.utf8.allSatisfy({ (48...57).contains($0) }) else { return nil }
        return Int(digits)
    }

    /// Day directories under `root`, oldest first.
    static func days(in root: String) -> [String] {
        (DurableFile.entries(of: root) ?? []).filter { Timestamp.parseDay($0) != nil }.sorted()
    }

    /// Instance ids end up in file names: keep them to a portable, path-safe alphabet.
    static func isValidInstance(_ s: String) -> Bool {
        let u = s.utf8
        return (1...64).contains(u.count) && s != "." && s != ".." && u.allSatisfy {
            switch $0 {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "."): true
            default: false
            }
        }
    }
}

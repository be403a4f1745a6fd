import DurableFiles

/// Where segments live (SPEC §5): `<root>/<YYYY-MM-DD>/<instance>-<NNNNNN>.jsonl` (SegmentName),
/// the lock at `<root>/<instance>.lock`, each sealed segment's index beside it as `<segment>.idx`.
public struct SegmentLayout: Sendable {
    let root: String
    let instance: String

    public init(root: String, instance: String) {
        self.root = root
        self.instance = instance
    }

    /// Held (an OFD lock) by the running writer of `instance`: `events ship` probes it.
    public var lockPath: String { "\(root)/\(instance).lock" }
    func dayDirectory(_ day: String) -> String { "\(root)/\(day)" }
    func segmentPath(day: String, number: Int) -> String {
        "\(root)/\(SegmentName(day: day, instance: instance, number: number).relativePath)"
    }

    /// Day directories under `root`, oldest first.
    public static func days(in root: String) -> [String] {
        (DurableFile.entries(of: root) ?? []).filter { EventTime.parseDay($0) != nil }.sorted()
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

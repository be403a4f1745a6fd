/// A segment's name (SPEC §5): `<instance>-<NNNNNN>.jsonl` in its day directory, and its object
/// key once shipped (SPEC §9.1): `PREFIX/events/dt=<day>/<instance>-<NNNNNN>.jsonl.gz`. The one
/// place both are written and parsed, for the writer, `events ship` and `events export --from`.
public struct SegmentName: Hashable, Sendable {
    public let day: String
    public let instance: String
    /// Grows per instance across days: the name is unique without its day.
    public let number: Int

    public init(day: String, instance: String, number: Int) {
        self.day = day
        self.instance = instance
        self.number = number
    }

    /// `<instance>-<NNNNNN>.jsonl`: six digits at least, more past 999,999.
    public var fileName: String {
        let digits = String(number)
        return "\(instance)-\(String(repeating: "0", count: max(0, 6 - digits.count)))\(digits).jsonl"
    }

    /// `<day>/<file>`: the path under the events directory and the ledger's `segment`.
    public var relativePath: String { "\(day)/\(fileName)" }

    public func bucketKey(prefix: String) -> String { Self.bucketKeyPrefix(prefix) + day + "/" + fileName + ".gz" }

    /// `PREFIX/events/dt=`: where every shipped segment's key starts (what export lists).
    public static func bucketKeyPrefix(_ prefix: String) -> String { (prefix.isEmpty ? "" : prefix + "/") + "events/dt=" }

    /// A segment file in the day directory `day`; nil for any other name. Instance ids may
    /// contain `-` (the number is after the last one); only the name `fileName` would write
    /// parses, so a parsed name always leads back to the same file.
    public init?(day: String, fileName: String) {
        guard EventTime.parseDay(day) != nil, fileName.hasSuffix(".jsonl"), let dash = fileName.lastIndex(of: "-") else { return nil }
        let instance = String(fileName[..<dash])
        let digits = fileName[fileName.index(after: dash)...].dropLast(".jsonl".count)
        guard SegmentLayout.isValidInstance(instance), digits.utf8.allSatisfy({ (48...57).contains($0) }), let number = Int(digits) else { return nil }
        self.init(day: day, instance: instance, number: number)
        guard self.fileName == fileName else { return nil }
    }

    /// The segment a shipped object's key names under `prefix`; nil for any other key.
    public init?(bucketKey key: String, prefix: String) {
        let start = Self.bucketKeyPrefix(prefix)
        guard key.hasPrefix(start), key.hasSuffix(".gz") else { return nil }
        let rest = key.dropFirst(start.count).dropLast(".gz".count)
        guard let slash = rest.firstIndex(of: "/") else { return nil }
        self.init(day: String(rest[..<slash]), fileName: String(rest[rest.index(after: slash)...]))
    }
}

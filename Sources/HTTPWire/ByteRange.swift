// Range: bytes=… parsing (RFC 9110 §14.1.2) and resolution against a 64-bit size, with the
// policy of SPEC §4.3. docs/decisions/ranges-and-preconditions.md says why each rule is so.

/// A resolved, non-empty range of a representation: `start` ..< `start + length`.
public struct ByteRange: Sendable, Hashable {
    public var start: Int64
    public var length: Int64

    public init(start: Int64, length: Int64) {
        self.start = start
        self.length = length
    }

    /// Inclusive last byte, as Content-Range writes it.
    public var end: Int64 { start + length - 1 }

    /// `bytes S-E/T`
    public func contentRange(size: Int64) -> String { "bytes \(start)-\(end)/\(size)" }
}

/// One byte-range-spec as sent, before the size is known.
public enum ByteRangeSpec: Sendable, Hashable {
    /// `first-` or `first-last`
    case from(Int64, through: Int64?)
    /// `-count`: the last `count` bytes (count > 0)
    case suffix(Int64)

    /// nil when the spec asks for nothing inside `size` bytes.
    func resolve(size: Int64) -> ByteRange? {
        switch self {
        case .from(let first, let last):
            guard first < size else { return nil }
            let end = min(last ?? (size - 1), size - 1)
            return ByteRange(start: first, length: end - first + 1)
        case .suffix(let count):
            let start = count >= size ? 0 : size - count
            return ByteRange(start: start, length: size - start)
        }
    }
}

/// What a Range header means for a representation of a given size.
public enum RangeResolution: Sendable, Hashable {
    /// 200 with the whole representation: no Range, another unit, an empty file, or a set we
    /// decline to split (too many ranges, overlapping ones).
    case whole
    /// 206: one range as a plain body, several as multipart/byteranges, in the order sent.
    case ranges([ByteRange])
    /// 416: the header is a `bytes` range set that does not parse.
    case malformed
    /// 416: it parses, but no range starts inside the representation.
    case unsatisfiable
}

public struct ByteRangeSet: Sendable, Hashable {
    /// More ranges than this are served as 200 whole: a many-part answer costs the server far
    /// more than the bytes are worth (RFC 9110 §14.2 allows ignoring such sets).
    public static let maxRanges = 16

    public var specs: [ByteRangeSpec]

    public init(specs: [ByteRangeSpec]) { self.specs = specs }

    public enum Parsed: Sendable, Hashable {
        /// Not `<unit>=…` with unit `bytes` (case-insensitive): the header is ignored.
        case otherUnit
        case malformed
        case set(ByteRangeSet)
    }

    /// Spaces are tolerated around numbers, `-` and `,`, and empty list elements are skipped
    /// (Go's and nginx's laxity), but at least one spec is required and any bad spec poisons the set.
    public static func parse(_ header: String) -> Parsed {
        guard let eq = header.utf8.firstIndex(of: UInt8(ascii: "=")) else { return .otherUnit }
        let unit = header.utf8[..<eq]
        guard unit.count == 5, unit.elementsEqual("bytes".utf8, by: { $0 | 0x20 == $1 }) else { return .otherUnit }
        var specs: [ByteRangeSpec] = []
        for element in header.utf8[header.utf8.index(after: eq)...].split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false) {
            var text = element
            ListSyntax.trimOWS(&text)
            if text.isEmpty { continue }
            guard let spec = parseSpec(text) else { return .malformed }
            specs.append(spec)
        }
        return specs.isEmpty ? .malformed : .set(ByteRangeSet(specs: specs))
    }

    private static func parseSpec(_ text: Substring.UTF8View) -> ByteRangeSpec? {
        guard let dash = text.firstIndex(of: UInt8(ascii: "-")) else { return nil }
        var firstText = text[..<dash], lastText = text[text.index(after: dash)...]
        ListSyntax.trimOWS(&firstText)
        ListSyntax.trimOWS(&lastText)
        if firstText.isEmpty {
            // A zero-length suffix selects nothing; RFC 9110 calls such a set unsatisfiable, and
            // SPEC §4.3 lists it as malformed: either way 416.
            guard let count = parseNumber(lastText), count > 0 else { return nil }
            return .suffix(count)
        }
        guard let first = parseNumber(firstText) else { return nil }
        if lastText.isEmpty { return .from(first, through: nil) }
        guard let last = parseNumber(lastText), last >= first else { return nil }
        return .from(first, through: last)
    }

    /// 1*DIGIT that fits in Int64; no sign, no hex, no inner spaces.
    private static func parseNumber(_ digits: Substring.UTF8View) -> Int64? {
        guard !digits.isEmpty else { return nil }
        var value: Int64 = 0
        for byte in digits {
            guard (0x30...0x39).contains(byte) else { return nil }
            let (times10, o1) = value.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(Int64(byte - 0x30))
            guard !o1, !o2 else { return nil }
            value = sum
        }
        return value
    }

    /// Unsatisfiable specs are skipped; the rest keep the order sent.
    public func resolve(size: Int64) -> RangeResolution {
        guard specs.count <= Self.maxRanges else { return .whole }
        let ranges = specs.compactMap { $0.resolve(size: size) }
        guard !ranges.isEmpty else { return .unsatisfiable }
        // Disjoint ranges inside the file can never sum to more than it, so this single check
        // also covers SPEC's "together cover more than the file" rule.
        let sorted = ranges.sorted { $0.start < $1.start }
        for (a, b) in zip(sorted, sorted.dropFirst()) where b.start <= a.end { return .whole }
        return .ranges(ranges)
    }

    /// The whole policy for one request. An empty representation ignores any Range (there is
    /// nothing to slice, and clients that always send Range must still get the file).
    public static func resolve(header: String?, size: Int64) -> RangeResolution {
        guard let header, size > 0 else { return .whole }
        switch parse(header) {
        case .otherUnit: return .whole
        case .malformed: return .malformed
        case .set(let set): return set.resolve(size: size)
        }
    }
}

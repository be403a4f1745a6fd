/// The line the writer appends after each group's event lines, in the same write and before
/// the fdatasync: `{"commit":{"lines":K,"bytes":B}}` says the K lines (B bytes, newlines
/// included) since the previous record are committed. Every segment starts with the empty
/// record, which also tells readers that its lines need a record (segments written before
/// commit records existed have none). Still JSON Lines: jq and old readers see an object
/// without `batch_id`. Recognised by its exact bytes only: an event line always carries
/// `batch_id`, so it can never be this single-member object.
struct CommitRecord: Equatable {
    var lines: Int
    var bytes: Int

    static let opening = CommitRecord(lines: 0, bytes: 0)
    static let openingBytes: [UInt8] = opening.encoded()

    private static let head: [UInt8] = Array(#"{"commit":{"lines":"#.utf8)
    private static let middle: [UInt8] = Array(#","bytes":"#.utf8)
    private static let tail: [UInt8] = Array("}}".utf8)

    /// The record as one line, newline included.
    func encoded() -> [UInt8] {
        var out: [UInt8] = []
        append(to: &out)
        return out
    }

    func append(to out: inout [UInt8]) {
        out.append(contentsOf: Self.head)
        out.append(contentsOf: String(lines).utf8)
        out.append(contentsOf: Self.middle)
        out.append(contentsOf: String(bytes).utf8)
        out.append(contentsOf: Self.tail)
        out.append(0x0A)
    }

    /// The record a line (without its newline) holds exactly as the writer writes it; nil for any other line.
    init?(line: ArraySlice<UInt8>) {
        guard line.count < 64, line.starts(with: Self.head), line.last == Self.tail.last else { return nil }
        var rest = line.dropFirst(Self.head.count)
        guard let lines = Self.number(&rest), rest.starts(with: Self.middle) else { return nil }
        rest = rest.dropFirst(Self.middle.count)
        guard let bytes = Self.number(&rest), rest.elementsEqual(Self.tail) else { return nil }
        self.init(lines: lines, bytes: bytes)
    }

    init(lines: Int, bytes: Int) {
        self.lines = lines
        self.bytes = bytes
    }

    /// A decimal without leading zeros (as `String(Int)` writes it), consumed from `s`.
    private static func number(_ s: inout ArraySlice<UInt8>) -> Int? {
        let digits = s.prefix { (48...57).contains($0) }
        guard (1...18).contains(digits.count), digits.first != 48 || digits.count == 1 else { return nil }
        s = s.dropFirst(digits.count)
        return digits.reduce(0) { $0 * 10 + Int($1 - 48) }
    }
}

/// Aligned plain-text columns: text left-aligned, numbers right-aligned.
struct TextTable {
    enum Alignment { case left, right }
    let headers: [String]
    let alignments: [Alignment]
    var rows: [[String]] = []

    init(_ columns: [(String, Alignment)]) {
        headers = columns.map(\.0)
        alignments = columns.map(\.1)
    }

    mutating func append(_ row: [String]) { rows.append(row) }

    func render() -> String {
        let all = [headers] + rows
        let widths = headers.indices.map { i in all.map { $0[i].count }.max() ?? 0 }
        return all.map { row in
            row.indices.map { i in
                let pad = String(repeating: " ", count: widths[i] - row[i].count)
                return alignments[i] == .left ? row[i] + pad : pad + row[i]
            }
            .joined(separator: "  ")
            .trimmingTrailingSpaces()
        }
        .joined(separator: "\n") + "\n"
    }
}

extension String {
    func trimmingTrailingSpaces() -> String {
        var s = Substring(self)
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }
}

enum CSV {
    /// RFC 4180 field: quoted when it holds a comma, quote or line break.
    static func field(_ s: String) -> String {
        guard s.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return s }
        return "\"" + s.replacingAll("\"", with: "\"\"") + "\""
    }

    static func line(_ fields: [String]) -> String { fields.map(field).joined(separator: ",") + "\r\n" }
}

extension String {
    func replacingAll(_ target: Character, with replacement: String) -> String {
        var out = ""
        for c in self { if c == target { out += replacement } else { out.append(c) } }
        return out
    }
}

/// Human-readable byte counts in SI units (the unit the SIZE argument defaults to).
public enum ByteFormat {
    public static func human(_ bytes: Int64) -> String {
        let units = ["B", "kB", "MB", "GB", "TB", "PB", "EB"]
        var scale: Int64 = 1
        var i = 0
        while i < units.count - 1, bytes / scale >= 1000 { scale *= 1000; i += 1 }
        return i == 0 ? "\(bytes) B" : FixedPoint.format(Int128(bytes), over: Int128(scale), places: 2) + " " + units[i]
    }

    /// Like `human` without trailing zeros, for axis labels: `200 GB`, `1.5 TB`.
    static func compact(_ bytes: Int64) -> String {
        let parts = human(bytes).split(separator: " ")
        return FixedPoint.trimmed(String(parts[0])) + " " + parts[1]
    }

    /// `1 request`, `5,000 requests`.
    public static func requests(_ n: Int64) -> String {
        grouped(n) + (n == 1 ? " request" : " requests")
    }

    /// Thousands separators: 5000000 → 5,000,000.
    public static func grouped(_ n: Int64) -> String {
        let digits = Array(String(n))
        var out = ""
        for (i, d) in digits.enumerated() {
            if i > 0, (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(d)
        }
        return out
    }
}

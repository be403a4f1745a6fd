/// The one JSON error shape of SPEC §10: {"error":"<code>","message":"<text>"}.
public enum ErrorBody {
    public static let contentType = "application/json"

    public static func json(code: String, message: String) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(32 + code.utf8.count + message.utf8.count)
        out.append(contentsOf: #"{"error":"#.utf8)
        appendQuoted(code, to: &out)
        out.append(contentsOf: #","message":"#.utf8)
        appendQuoted(message, to: &out)
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// JSON string literal per RFC 8259 §7 (control characters as \u00XX).
    public static func appendQuoted(_ s: String, to out: inout [UInt8]) {
        let hex = Array("0123456789abcdef".utf8)
        out.append(UInt8(ascii: "\""))
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "\""): out.append(contentsOf: [92, 34])
            case UInt8(ascii: "\\"): out.append(contentsOf: [92, 92])
            case 10: out.append(contentsOf: [92, UInt8(ascii: "n")])
            case 13: out.append(contentsOf: [92, UInt8(ascii: "r")])
            case 9: out.append(contentsOf: [92, UInt8(ascii: "t")])
            case 0..<0x20: out.append(contentsOf: Array(#"\u00"#.utf8) + [hex[Int(b >> 4)], hex[Int(b & 15)]])
            default: out.append(b)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}

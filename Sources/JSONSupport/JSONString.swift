import BinaryText

/// The one JSON string writer (RFC 8259 §7): quote, backslash and every control character
/// escaped — the five with a short form as `\b \f \n \r \t`, the rest and DEL as `\u00XX`
/// (DEL is legal raw, but escaping it keeps a log line or an error safe to print on a
/// terminal). Everything else, including non-ASCII UTF-8, is copied as is.
public enum JSONString {
    /// `text` as a quoted literal.
    public static func quoted(_ text: String) -> String {
        var out: [UInt8] = []
        append(text, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    public static func append(_ text: String, to out: inout [UInt8]) {
        var text = text
        text.withUTF8 { append(utf8: $0, to: &out) }
    }

    /// Appends valid UTF-8 as a quoted literal; the all-plain case (nearly every string) is one
    /// bulk copy, as the access log writes several per request.
    public static func append(utf8 bytes: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        if !bytes.contains(where: needsEscape) {
            out.append(contentsOf: bytes)
        } else {
            for byte in bytes { appendEscaped(byte, to: &out) }
        }
        out.append(UInt8(ascii: "\""))
    }

    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == 0x7F || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    private static func appendEscaped(_ byte: UInt8, to out: inout [UInt8]) {
        let short: UInt8? = switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): byte
        case 0x08: UInt8(ascii: "b")
        case 0x0C: UInt8(ascii: "f")
        case 0x0A: UInt8(ascii: "n")
        case 0x0D: UInt8(ascii: "r")
        case 0x09: UInt8(ascii: "t")
        default: nil
        }
        if let short {
            out.append(UInt8(ascii: "\\"))
            out.append(short)
        } else if needsEscape(byte) {
            out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
            out.append(Hex.digits[Int(byte >> 4)])
            out.append(Hex.digits[Int(byte & 15)])
        } else {
            out.append(byte)
        }
    }
}

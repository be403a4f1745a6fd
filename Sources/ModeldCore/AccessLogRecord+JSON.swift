// Hand-rolled JSON serialisation of a record: one object and a newline, appended to a reused
// byte buffer (no JSONEncoder or formatter per record).
import CivilTime

extension AccessLogRecord {
    /// Appends `{"ts":…,…,"instance":…}\n`. Optional fields are left out when nil.
    public func appendJSONLine(to out: inout [UInt8]) {
        out.append(contentsOf: #"{"ts":""#.utf8)
        Self.appendTimestamp(timestampMilliseconds, to: &out)
        out.append(contentsOf: #"","method":"#.utf8)
        Self.appendString(method.utf8, to: &out)
        out.append(contentsOf: #","path":"#.utf8)
        Self.appendString(path.utf8.prefix { $0 != UInt8(ascii: "?") }, to: &out)
        out.append(contentsOf: #","route":""#.utf8)
        out.append(contentsOf: route.name.utf8)
        out.append(contentsOf: #"","status":"#.utf8)
        out.append(contentsOf: String(status).utf8)
        out.append(contentsOf: #","bytes":"#.utf8)
        out.append(contentsOf: String(bytes).utf8)
        out.append(contentsOf: range ? #","range":true"#.utf8 : #","range":false"#.utf8)
        out.append(contentsOf: #","duration_ms":"#.utf8)
        Self.appendMilliseconds(durationMilliseconds, to: &out)
        if let modelID {
            out.append(contentsOf: #","model_id":"#.utf8)
            Self.appendString(modelID.utf8, to: &out)
        }
        if let sdk {
            out.append(contentsOf: #","sdk":"#.utf8)
            Self.appendString(sdk.utf8, to: &out)
        }
        out.append(contentsOf: #","instance":"#.utf8)
        Self.appendString(instance.utf8, to: &out)
        out.append(contentsOf: "}\n".utf8)
    }

    /// A JSON string literal (RFC 8259 §7): quote, backslash and control characters escaped.
    static func appendString(_ bytes: some Sequence<UInt8>, to out: inout [UInt8]) {
        let hex = Array("0123456789abcdef".utf8)
        out.append(UInt8(ascii: "\""))
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case UInt8(ascii: "\n"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case UInt8(ascii: "\r"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case UInt8(ascii: "\t"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0..<0x20, 0x7F:
                out.append(contentsOf: "\\u00".utf8)
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0x0F)])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// A number with exactly three decimals; negative or non-finite durations are written as 0.000.
    static func appendMilliseconds(_ value: Double, to out: inout [UInt8]) {
        let micros = value.isFinite && value > 0 ? Int64(min(value * 1_000, 9e15).rounded()) : 0
        out.append(contentsOf: String(micros / 1_000).utf8)
        out.append(UInt8(ascii: "."))
        RFC3339.appendPadded(micros % 1_000, width: 3, to: &out)
    }

    /// `YYYY-MM-DDTHH:MM:SS.mmmZ` (RFC 3339, UTC).
    static func appendTimestamp(_ milliseconds: Int64, to out: inout [UInt8]) {
        RFC3339.append(milliseconds: milliseconds, to: &out)
    }
}

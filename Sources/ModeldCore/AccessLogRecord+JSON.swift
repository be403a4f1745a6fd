// Hand-rolled JSON serialisation of a record: one object and a newline, appended to a reused
// byte buffer (no JSONEncoder or formatter per record).
import CivilTime
import JSONSupport

extension AccessLogRecord {
    /// Appends `{"ts":…,…,"instance":…}\n`. Optional fields are left out when nil.
    public func appendJSONLine(to out: inout [UInt8]) {
        Self.appendLiteral(#"{"ts":""#, to: &out)
        Self.appendTimestamp(timestampMilliseconds, to: &out)
        Self.appendLiteral(#"","method":"#, to: &out)
        Self.appendString(method, to: &out)
        Self.appendLiteral(#","path":"#, to: &out)
        Self.appendString(path, to: &out, stoppingAt: UInt8(ascii: "?"))
        Self.appendLiteral(#","route":""#, to: &out)
        out.append(contentsOf: route.name.utf8)
        Self.appendLiteral(#"","status":"#, to: &out)
        RFC3339.appendPadded(Int64(status), width: 1, to: &out)
        Self.appendLiteral(#","bytes":"#, to: &out)
        RFC3339.appendPadded(bytes, width: 1, to: &out)
        Self.appendLiteral(range ? #","range":true"# : #","range":false"#, to: &out)
        Self.appendLiteral(#","duration_ms":"#, to: &out)
        Self.appendMilliseconds(durationMilliseconds, to: &out)
        if let modelID {
            Self.appendLiteral(#","model_id":"#, to: &out)
            Self.appendString(modelID, to: &out)
        }
        if let sdk {
            Self.appendLiteral(#","sdk":"#, to: &out)
            Self.appendString(sdk, to: &out)
        }
        Self.appendLiteral(#","instance":"#, to: &out)
        Self.appendString(instance, to: &out)
        Self.appendLiteral("}\n", to: &out)
    }

    /// A literal's bytes in one copy (appending a `String.UTF8View` goes element by element).
    private static func appendLiteral(_ literal: StaticString, to out: inout [UInt8]) {
        out.append(contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    /// A JSON string literal of `text` up to the first `stop` byte (the path without its query).
    static func appendString(_ text: String, to out: inout [UInt8], stoppingAt stop: UInt8? = nil) {
        var text = text
        text.withUTF8 { all in
            let end = stop.flatMap { s in all.firstIndex(of: s) } ?? all.count
            JSONString.append(utf8: UnsafeBufferPointer(rebasing: all[..<end]), to: &out)
        }
    }

    /// A number with exactly three decimals; negative or non-finite durations are written as 0.000.
    static func appendMilliseconds(_ value: Double, to out: inout [UInt8]) {
        let micros = value.isFinite && value > 0 ? Int64(min(value * 1_000, 9e15).rounded()) : 0
        RFC3339.appendPadded(micros / 1_000, width: 1, to: &out)
        out.append(UInt8(ascii: "."))
        RFC3339.appendPadded(micros % 1_000, width: 3, to: &out)
    }

    /// `YYYY-MM-DDTHH:MM:SS.mmmZ` (RFC 3339, UTC).
    static func appendTimestamp(_ milliseconds: Int64, to out: inout [UInt8]) {
        RFC3339.append(milliseconds: milliseconds, to: &out)
    }
}

import JSONSupport
import Testing

/// `JSONReader.members` against the full reader, as a table: the same values where `parse`
/// gives an object, the same failure where it fails (it is the same reader, skipping what it
/// is not asked for), and a failure where the text is valid but not an object.
struct JSONMembersTests {
    static let names: JSONReader.MemberNames = ["client_id", "name", "value", "props"]
    static let event = #""client_id":"c1","name":"n","value":1.5"#

    static let lines: [String] = [
        // Valid: wanted fields of each type, absent ones, order, whitespace.
        "{\(event)}",
        #" { "value" : -0 , "name" : "n" } "#,
        #"{"seq":3,"instance":"a","received_at":"2026-11-24T05:00:00Z"}"#,
        #"{"client_id":null,"name":true,"value":"1.5"}"#,
        "{}",
        // Escapes in strings, wanted and skipped; escaped keys name the same member.
        #"{"client_id":"a\"b\\c\/\b\f\n\r\t\u00e9\ud83d\ude00","other":"x\u0041\ud83d\ude00"}"#,
        #"{"cl\u0069ent_id":"escaped key","n\u0061me":"n"}"#,
        "{\"client_id\":\"é😀\",\"other\":\"é😀\"}",
        // Numbers: exponents, fractions, negative zero, overflow to infinity, long integers.
        #"{"value":1.5e3,"other":-0.5E-2}"#,
        #"{"value":1e400,"other":-1e400}"#,
        #"{"value":12345678901234567890,"other":2E+2}"#,
        // Nested objects and arrays: as unknown fields (skipped) and as wanted ones (built).
        #"{"other":{"a":{"b":[1,{"c":null}],"d":"x"}},"name":"n"}"#,
        #"{"props":{"screen":"paywall","battery":0.8},"other":[[],{},[{"x":[]}]]}"#,
        // Duplicate keys: top level (wanted or not), through an escape, nested in an unknown field.
        "{\(event),\"name\":\"again\"}",
        #"{"seq":1,"seq":2}"#,
        #"{"name":"a","n\u0061me":"b"}"#,
        #"{"other":{"a":1,"a":2}}"#,
        #"{"K":1,"\u212A":2}"#,
        "{" + (0..<20).map { #""k\#($0)":\#($0)"# }.joined(separator: ",") + #","k7":0}"#,
        // Invalid inside skipped members: strings, numbers, literals, nesting.
        #"{"other":"\x"}"#,
        #"{"other":"\ud800"}"#,
        "{\"other\":\"\u{1}\"}",
        #"{"other":01}"#,
        #"{"other":1.}"#,
        #"{"other":1.e3}"#,
        #"{"other":-}"#,
        #"{"other":tru}"#,
        #"{"other":[1,]}"#,
        #"{"other":{"a"}}"#,
        #"{"other":"#  + String(repeating: "[", count: 64) + String(repeating: "]", count: 64) + "}",
        #"{"other":"#  + String(repeating: "[", count: 63) + String(repeating: "]", count: 63) + "}",
        // Invalid inside wanted members, and around the object.
        #"{"client_id":"\u00"}"#,
        #"{"value":+1}"#,
        #"{"name":"n",}"#,
        #"{"name":"n"} x"#,
        #"{"name":"n""#,
        "",
        "\u{FEFF}{}",
        // Valid JSON, not an object.
        #"["name"]"#,
        #""name""#,
        "12",
        // Not JSON at all, and a torn array.
        "not json",
        "[1,",
    ]

    static let badBytes: [[UInt8]] = [
        Array(#"{"other":""#.utf8) + [0xFF] + Array(#""}"#.utf8),
        Array(#"{"name":""#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8),
        Array(#"{"other":""#.utf8) + [0xC0, 0xAF] + Array(#""}"#.utf8),
    ]

    struct Line: Sendable, CustomTestStringConvertible {
        let bytes: [UInt8]
        var testDescription: String { String(decoding: bytes, as: UTF8.self) }
    }

    @Test(arguments: (lines.map { Array($0.utf8) } + badBytes).map(Line.init))
    func members_sameAnswersAsTheFullReader(_ line: Line) {
        let line = line.bytes
        let full = Result(catching: { () throws(JSONReader.Failure) in try JSONReader.parse(line) })
        let picked = Result(catching: { () throws(JSONReader.Failure) in try JSONReader.members(Self.names, of: line[...]) })
        switch (full, picked) {
        case (.success(let root), .success(let values)):
            #expect(Self.names.names.map { root.value[$0].map(Self.text) } == values.map { $0.map(Self.text) })
        case (.success(let root), .failure(let f)):
            if case .object = root.value { Issue.record("rejected a valid object: \(f)") }
            #expect(f.reason == "expected an object")
        case (.failure(let f), .failure(let g)):
            #expect(f == g)
        case (.failure(let f), .success):
            Issue.record("accepted what the full reader rejects (\(f))")
        }
    }

    /// The line must be the members' bytes exactly: a slice is read from its own start.
    @Test func members_ofASlice_offsetsFromTheSliceStart() throws {
        let bytes = Array(#"xx{"name":"n","value":2}yy"#.utf8)
        let values = try JSONReader.members(["value", "name", "absent"], of: bytes[2..<(bytes.count - 2)])
        #expect(values[0]?.numberValue == 2 && values[1]?.stringValue == "n" && values[2] == nil)
        #expect(throws: JSONReader.Failure(offset: 22, reason: "unexpected data after the JSON value")) {
            try JSONReader.members(["name"], of: bytes[2...])
        }
    }

    /// A value as comparable text: the variant, its contents and the source ranges of nested nodes.
    static func text(_ v: JSONValue) -> String { String(describing: v) }
}

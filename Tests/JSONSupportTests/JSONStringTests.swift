import JSONSupport
import Testing

/// The one JSON string writer against RFC 8259 §7, and through the package's reader.
struct JSONStringTests {
    /// RFC 8259 §7: `"` and `\` and U+0000–U+001F must be escaped; the two-character forms are
    /// used where the grammar has one, `\u00XX` (lowercase hex) elsewhere; DEL is escaped too.
    static let table: [(input: String, literal: String)] = [
        ("", #""""#),
        ("plain", #""plain""#),
        ("\"", #""\"""#),
        ("\\", #""\\""#),
        ("/", #""/""#),
        ("\u{08}\u{0C}\n\r\t", #""\b\f\n\r\t""#),
        ("\u{00}", #""\u0000""#),
        ("\u{01}\u{1F}", #""\u0001\u001f""#),
        ("\u{0B}", #""\u000b""#),
        ("\u{7F}", #""\u007f""#),
        ("a\u{7E}z", #""a~z""#),
        ("é😀\u{2028}", "\"é😀\u{2028}\""),
        ("k=\"v\"\n", #""k=\"v\"\n""#),
    ]

    @Test(arguments: table)
    func escapesPerRFC8259(input: String, literal: String) {
        #expect(JSONString.quoted(input) == literal)
    }

    @Test func everyASCIIByteAndNonASCIIRoundTripsThroughTheReader() throws {
        var samples = (0...0x7F).map { String(decoding: [UInt8($0)], as: UTF8.self) }
        samples.append(String(decoding: (0...0x7F).map { UInt8($0) }, as: UTF8.self))
        samples += ["é", "日本語", "😀", "\u{FEFF}", "\u{10FFFF}", "mixed \u{00} é \"q\" 😀\u{7F}"]
        for text in samples {
            var out: [UInt8] = []
            JSONString.append(text, to: &out)
            let node = try JSONReader.parse(out)
            #expect(node.value.stringValue == text, "\(Array(text.utf8))")
            // What the reader accepts is also what a strict reader requires: no raw control byte.
            #expect(!out.contains { $0 < 0x20 || $0 == 0x7F })
        }
    }
}

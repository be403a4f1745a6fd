import JSONSupport
import Testing

/// The one JSON reader of the package (event batches, stored events, pricing, access logs).
struct JSONReaderTests {
    func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }

    @Test func json_strictRFC8259() {
        for bad in ["", " ", "01", "1.", "-", "+1", "[1,]", "{\"a\"}", "\"\\x\"", "\"\\ud800\"", "\"\u{1}\"", "tru", "[\"a\" \"b\"]",
                    "\u{FEFF}{}", String(repeating: "[", count: 65) + String(repeating: "]", count: 65)] {
            #expect(throws: JSONReader.Failure.self, "\(bad)") { try JSONReader.parse(bytes(bad)) }
        }
        #expect(throws: JSONReader.Failure.self) { try JSONReader.parse([0x22, 0xFF, 0x22]) }
        let many = (0..<40).map { #""k\#($0)":1"# }
        #expect(throws: JSONReader.Failure(offset: 311, reason: #"duplicate key "k3""#)) {
            try JSONReader.parse(bytes("{" + (many + [#""k3":2"#]).joined(separator: ",") + "}"))
        }
        #expect(throws: JSONReader.Failure(offset: 36, reason: #"duplicate key "k3""#)) {
            try JSONReader.parse(bytes("{" + (many.prefix(5) + [#""k3":2"#]).joined(separator: ",") + "}"))
        }
        let node = try? JSONReader.parse(bytes(#" {"a":[1,-0.5e+2,true,false,null,"\u00e9\ud83d\ude00\n\"/"]} "#))
        guard case .object(let m)? = node?.value, case .array(let a) = m[0].node.value else { Issue.record("not parsed"); return }
        #expect(a.count == 6)
        #expect(a[1].value.numberValue == -50)
        #expect(a[5].value.stringValue == "é😀\n\"/")
        #expect(node?.range == 1..<60)
    }

    /// Strings without escapes: ASCII is taken as it is, anything else is validated as UTF-8.
    @Test func json_unescapedStrings_asciiAsIs_otherBytesValidated() throws {
        #expect(try JSONReader.parse(bytes(#""plain ascii""#)).value.stringValue == "plain ascii")
        #expect(try JSONReader.parse(bytes("\"é😀\"")).value.stringValue == "é😀")
        // A cut 2-byte sequence, a cut 3-byte sequence, an overlong '/'.
        for bad: [UInt8] in [[0x22, 0x61, 0xC3, 0x28, 0x22], [0x22, 0xE2, 0x82, 0x22], [0x22, 0xC0, 0xAF, 0x22]] {
            #expect(throws: JSONReader.Failure(offset: 1, reason: "invalid UTF-8")) { try JSONReader.parse(bad) }
        }
    }

    @Test func json_membersAndExactLiterals() throws {
        let source = bytes(#"{"price":0.0004,"n":{"deep":[1E3]},"s":"x","t":true,"z":null}"#)
        let root = try JSONReader.parse(source)
        #expect(root["price"]?.literal(in: source) == "0.0004")
        #expect(root["n"]?["deep"]?.literal(in: source) == "[1E3]")
        #expect(root["s"]?.value.stringValue == "x" && root["t"]?.value.boolValue == true)
        #expect(root["z"]?.isNull == true && root["missing"] == nil && root["s"]?["x"] == nil)
        #expect("\(JSONReader.Failure(offset: 3, reason: "r"))" == "invalid JSON at byte 3: r")
    }
}

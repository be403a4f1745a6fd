import BinaryText
import Testing

struct BinaryTextTests {
    @Test func hexEncodesLowercaseAndDecodesEitherCase() {
        #expect(Hex.encode([0x00, 0x0f, 0xa5, 0xff]) == "000fa5ff")
        #expect(Hex.encode([UInt8]()) == "")
        #expect(Hex.decode("000FA5ff") == [0x00, 0x0f, 0xa5, 0xff])
        for bad in ["0", "0g", "zz", " 00"] { #expect(Hex.decode(bad) == nil, "\(bad)") }
        let all = (0...255).map { UInt8($0) }
        #expect(Hex.decode(Hex.encode(all)) == all)
    }

    @Test func lowercaseCheckCountsBytes() {
        #expect(Hex.isLowercase(String(repeating: "ab", count: 32), bytes: 32))
        #expect(!Hex.isLowercase(String(repeating: "AB", count: 32), bytes: 32))
        #expect(!Hex.isLowercase(String(repeating: "ab", count: 31), bytes: 32))
        #expect(!Hex.isLowercase(String(repeating: "g0", count: 32), bytes: 32))
        let random = Hex.random(bytes: 8)
        #expect(Hex.isLowercase(random, bytes: 8) && random != Hex.random(bytes: 8))
    }

    /// RFC 4648 §10 test vectors, and a SHA-256 sized digest as Repr-Digest carries it.
    @Test(arguments: [("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="),
                      ("fooba", "Zm9vYmE="), ("foobar", "Zm9vYmFy")])
    func base64MatchesRFC4648(input: String, expected: String) {
        #expect(Base64.encode(Array(input.utf8)) == expected)
    }

    @Test func base64UsesTheWholeAlphabet() {
        #expect(Base64.encode([0xfb, 0xff, 0xbf]) == "+/+/")
        #expect(Base64.encode([0x00, 0x10, 0x83]) == "ABCD")
    }
}

import Testing
@testable import ModeldSigning

@Suite struct SignatureHeaderTests {
    @Test(arguments: [
        ("v=1, catalog=7, created=10, expires=20", SignatureParams(catalog: 7, created: 10, expires: 20)),
        ("v=1,catalog=7,created=10,expires=20", SignatureParams(catalog: 7, created: 10, expires: 20)),
        ("expires=20, v=1, x=\"y\", created=10, catalog=7", SignatureParams(catalog: 7, created: 10, expires: 20)),
        ("v=1, flag, catalog=7, created=10, expires=20", SignatureParams(catalog: 7, created: 10, expires: 20)),
    ])
    func params_parse(_ text: String, _ expected: SignatureParams) {
        #expect(SignatureParams.parse(text) == expected)
    }

    @Test(arguments: [
        "", "v=2, catalog=7, created=10, expires=20", "v=1, catalog=7, created=10", "v=1, catalog=x, created=1, expires=2",
        "v=1, Catalog=7, created=10, expires=20", "v=1, catalog=7, created=10, expires=1234567890123456",
        "v=1, catalog=7, created=10, expires=20,", "v, catalog=7, created=10, expires=20",
    ])
    func params_refuse(_ text: String) {
        #expect(SignatureParams.parse(text) == nil)
    }

    @Test func params_roundTrip() {
        let p = SignatureParams(catalog: 12, created: 1_763_900_000, expires: 1_764_504_800)
        #expect(p.headerValue == "v=1, catalog=12, created=1763900000, expires=1764504800")
        #expect(SignatureParams.parse(p.headerValue) == p)
    }

    @Test func signatures_roundTripTwo() {
        let sigs = [Signature(keyID: "0123456789abcdef", bytes: [1, 2, 3]), Signature(keyID: "fedcba9876543210", bytes: Array(repeating: 255, count: 64))]
        let text = SignatureList.headerValue(sigs)
        #expect(text.hasPrefix(":AQID:;keyid=\"0123456789abcdef\", :"))
        #expect(SignatureList.parse(text) == sigs)
    }

    @Test(arguments: [
        (":AQID:;keyid=\"0123456789abcdef\"", 1),
        (":AQID:;alg=ed25519;keyid=\"0123456789abcdef\"", 1),
        (":AQID:;new;keyid=\"0123456789abcdef\"", 1),
        (":AQID:; keyid=\"0123456789abcdef\";x=1 ,\t:AQID:;keyid=\"0123456789abcdef\"", 2),
    ])
    func signatures_parse(_ text: String, _ count: Int) {
        #expect(SignatureList.parse(text)?.count == count)
    }

    @Test(arguments: [
        "", "AQID;keyid=\"0123456789abcdef\"", ":AQID:", ":AQID:;keyid=\"0123\"", ":AQID:;keyid=0123456789abcdef",
        ":AQID:;keyid=\"0123456789abcdef\",", ":AQ!D:;keyid=\"0123456789abcdef\"", ":AQID:;keyid=\"0123456789ABCDEF\"", ":AQID:;keyid",
    ])
    func signatures_refuse(_ text: String) {
        #expect(SignatureList.parse(text) == nil)
    }
}

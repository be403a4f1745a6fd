import Testing
import CivilTime

@Suite struct HTTPDateTests {
    @Test func formatsIMFFixdate() {
        #expect(HTTPDate.format(epochSeconds: 784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.format(epochSeconds: 0) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(HTTPDate.format(epochSeconds: 1_795_000_000) == "Wed, 18 Nov 2026 11:06:40 GMT")
    }

    @Test(arguments: [
        "Sun, 06 Nov 1994 08:49:37 GMT",   // IMF-fixdate
        "Sunday, 06-Nov-94 08:49:37 GMT",  // RFC 850
        "Sun Nov  6 08:49:37 1994",        // asctime
    ])
    func parsesAllThreeForms(_ text: String) {
        #expect(HTTPDate.parse(text) == 784_111_777)
    }

    @Test(arguments: ["", "yesterday", "Sun, 06 Nov 1994 25:49:37 GMT", "Sun, 6 Nov 1994 08:49:37 GMT", "Sun, 06 Foo 1994 08:49:37 GMT"])
    func rejectsGarbage(_ text: String) {
        #expect(HTTPDate.parse(text) == nil)
    }
}

@testable import ModeldConfig
@testable import ModeldCore
import Testing

/// `trusted_proxies` (SPEC §8) and the client address the sign-in throttle keys on (SPEC §15.1).
@Suite struct ClientAddressTests {
    @Test func addressRanges_parseAndMatch() throws {
        let v4 = try #require(AddressRange("10.1.0.0/16"))
        #expect(v4.contains("10.1.255.7") && !v4.contains("10.2.0.1") && v4.contains("::ffff:10.1.2.3") && !v4.contains("fd00::1"))
        #expect(try #require(AddressRange("10.1.2.3/12")).description == "10.0.0.0/12")   // host bits cleared
        let v6 = try #require(AddressRange("fd00::/8"))
        #expect(v6.contains("fd12:3456::1") && v6.contains("[fd00::9]") && !v6.contains("fe80::1") && !v6.contains("10.0.0.1"))
        #expect(try #require(AddressRange("127.0.0.1")).contains("127.0.0.1") && !AddressRange("127.0.0.1")!.contains("127.0.0.2"))
        #expect(try #require(AddressRange("0.0.0.0/0")).contains("203.0.113.9"))
        for bad in ["", "10.0.0.0/33", "fd00::/129", "10.0.0/8", "10.0.0.0/", "10.0.0.0/8/8", "host.example", "10.0.0.0/-1", "10.0.0.0/ 8"] {
            #expect(AddressRange(bad) == nil, "\(bad)")
        }
    }

    static let proxies = [AddressRange("127.0.0.1")!, AddressRange("10.0.0.0/8")!]

    @Test(arguments: [
        // (peer, X-Forwarded-For lines, client address)
        ("203.0.113.5:4000", ["198.51.100.1"], "203.0.113.5"),                  // not a proxy: the header is ignored
        ("127.0.0.1:4000", [], "127.0.0.1"),                                    // a proxy that sent none
        ("127.0.0.1:4000", ["198.51.100.1"], "198.51.100.1"),
        ("127.0.0.1:4000", ["6.6.6.6, 198.51.100.1"], "198.51.100.1"),         // the client's own entry is not believed
        ("127.0.0.1:4000", ["6.6.6.6, 198.51.100.1, 10.0.0.2"], "198.51.100.1"), // two proxies deep
        ("127.0.0.1:4000", ["6.6.6.6", "198.51.100.1 , 10.0.0.2"], "198.51.100.1"), // several field lines, spaces
        ("127.0.0.1:4000", ["10.0.0.3, 10.0.0.2"], "10.0.0.3"),                 // only proxies: the farthest
        ("127.0.0.1:4000", ["198.51.100.1:5555"], "198.51.100.1"),              // a port some proxies add
        ("127.0.0.1:4000", ["[2001:db8::7]:443"], "2001:db8::7"),
        ("127.0.0.1:4000", ["2001:db8::7"], "2001:db8::7"),
        ("127.0.0.1:4000", ["198.51.100.1, unknown"], "127.0.0.1"),             // garbage stops at the last hop believed
        ("[::ffff:127.0.0.1]:4000", ["198.51.100.1"], "198.51.100.1"),          // a v4 proxy seen on a v6 socket
        ("[2001:db8::1]:4000", ["198.51.100.1"], "2001:db8::1"),
    ])
    func resolve_trustsOnlyItsOwnProxies_SPEC8(peer: String, forwarded: [String], expected: String) {
        #expect(ClientAddress.resolve(peer: peer, forwardedFor: forwarded, trusted: Self.proxies) == expected)
    }

    @Test func withoutTrustedProxiesTheHeaderNeverCounts() {
        #expect(ClientAddress.resolve(peer: "127.0.0.1:1", forwardedFor: ["198.51.100.1"], trusted: []) == "127.0.0.1")
    }
}

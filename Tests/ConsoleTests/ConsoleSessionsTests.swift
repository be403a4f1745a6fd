import AccessTokens
import Console
import Testing

@Suite struct ConsoleSessionsTests {
    @Test func aSessionLivesUntilItsLifetimeEndsAndEndsOnSignOut() {
        let sessions = ConsoleSessions(lifetimeMillis: 1_000)
        let (cookie, session) = sessions.create(now: 10_000, principal: .configuredAdmin)
        #expect(cookie.utf8.count == 64)   // 256 random bits, hex
        #expect(session.csrfToken.utf8.count == 64 && session.csrfToken != cookie)
        #expect(sessions.session(cookie: cookie, now: 10_999) == session)
        #expect(sessions.session(cookie: cookie, now: 11_000) == nil)   // expired, and forgotten
        #expect(sessions.count == 0)
        let (second, _) = sessions.create(now: 20_000, principal: .configuredAdmin)
        sessions.end(cookie: second)
        #expect(sessions.session(cookie: second, now: 20_001) == nil)
    }

    @Test func cookiesThatAreNotSessionsAreRefused() {
        let sessions = ConsoleSessions(lifetimeMillis: 60_000)
        let (cookie, _) = sessions.create(now: 0, principal: .configuredAdmin)
        #expect(sessions.session(cookie: nil, now: 1) == nil)
        #expect(sessions.session(cookie: "", now: 1) == nil)
        #expect(sessions.session(cookie: cookie.uppercased(), now: 1) == nil)
        #expect(sessions.session(cookie: String(cookie.dropLast()) + (cookie.last == "0" ? "1" : "0"), now: 1) == nil)
        #expect(sessions.create(now: 0, principal: .configuredAdmin).cookie != cookie)
    }

    @Test func csrfComparisonNeedsTheExactToken() {
        #expect(SecretCompare.equal("abc", "abc"))
        #expect(!SecretCompare.equal(nil, "abc"))
        #expect(!SecretCompare.equal("abd", "abc"))
        #expect(!SecretCompare.equal("ab", "abc"))
        #expect(!SecretCompare.equal("", "abc"))
    }
}

@Suite struct LoginThrottleTests {
    @Test func failuresDoubleTheDelayPerAddress_andASuccessClearsIt_SPEC15_1() {
        let throttle = LoginThrottle()
        #expect(throttle.failed(address: "10.0.0.1", now: 0) == 200)
        #expect(throttle.failed(address: "10.0.0.2", now: 100) == 200)   // per address
        #expect(throttle.failed(address: "10.0.0.1", now: 150) == 400)   // parallel guesses wait longer each
        #expect(throttle.failed(address: "10.0.0.1", now: 1_200) == 800)
        for step in 0..<10 { _ = throttle.failed(address: "10.0.0.1", now: 10_000 + Int64(step) * 20_000) }
        #expect(throttle.failed(address: "10.0.0.1", now: 300_000) == LoginThrottle.maxDelayMillis)
        throttle.succeeded(address: "10.0.0.1")
        #expect(throttle.failed(address: "10.0.0.1", now: 300_001) == 200)
        #expect(throttle.failed(address: "10.0.0.2", now: 300_002) == 400)   // the other address kept its count
    }

    @Test func aQuietPeerStartsAgainAtTheBaseDelay() {
        let throttle = LoginThrottle()
        _ = throttle.failed(address: "p", now: 0)
        _ = throttle.failed(address: "p", now: 1_000)
        #expect(throttle.failed(address: "p", now: 1_000 + 15 * 60_000) == 200)
    }

    @Test func thePeerAddressDropsThePort() {
        #expect(LoginThrottle.address(ofPeer: "127.0.0.1:5123") == "127.0.0.1")
        #expect(LoginThrottle.address(ofPeer: "[::1]:443") == "[::1]")
    }
}

/// Sign-in returns to the page, and only to a page of this server (SPEC §15.1).
@Suite struct ReturnPathTests {
    @Test func sameOriginPathsOnly() {
        for good in ["/console/", "/console/releases/abc?x=1&y=%2F", "/console/events?from=2026-11-01"] {
            #expect(ReturnPath.validated(good) == good)
        }
        for bad in [nil, "", "console/", "//evil.example/", "/\\evil.example", "\\\\evil.example", "/console/\\x", "https://evil.example/",
                    "javascript:alert(1)", "/console/ x", "/console/\r\nSet-Cookie: a=b", "/console/é", "/" + String(repeating: "a", count: 2_048)] {
            #expect(ReturnPath.validated(bad) == nil, "\(String(describing: bad))")
        }
    }

    @Test func theSignInFormCarriesOnlyASafeReturnPath() {
        #expect(ConsolePage.signIn(message: nil, returnTo: "/console/events?name=a&b").contains(#"<input type="hidden" name="next" value="/console/events?name=a&amp;b">"#))
        #expect(!ConsolePage.signIn(message: nil, returnTo: "//evil.example").contains("name=\"next\""))
    }
}

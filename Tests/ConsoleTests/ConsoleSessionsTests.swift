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
    @Test func failuresDoubleTheDelayAndBlockThePeerUntilItIsDue() {
        let throttle = LoginThrottle()
        #expect(throttle.check(peer: "10.0.0.1", now: 0) == .proceed)
        #expect(throttle.failed(peer: "10.0.0.1", now: 0) == 200)
        #expect(throttle.check(peer: "10.0.0.1", now: 100) == .throttled(retryAfterMillis: 300))
        #expect(throttle.check(peer: "10.0.0.2", now: 100) == .proceed)   // per peer
        #expect(throttle.check(peer: "10.0.0.1", now: 200) == .throttled(retryAfterMillis: 200))   // the 401 goes out now
        #expect(throttle.check(peer: "10.0.0.1", now: 400) == .proceed)
        #expect(throttle.failed(peer: "10.0.0.1", now: 400) == 400)
        #expect(throttle.failed(peer: "10.0.0.1", now: 1_200) == 800)
        for step in 0..<10 { _ = throttle.failed(peer: "10.0.0.1", now: 10_000 + Int64(step) * 20_000) }
        #expect(throttle.failed(peer: "10.0.0.1", now: 300_000) == LoginThrottle.maxDelayMillis)
        throttle.succeeded(peer: "10.0.0.1")
        #expect(throttle.check(peer: "10.0.0.1", now: 300_001) == .proceed)
        #expect(throttle.failed(peer: "10.0.0.1", now: 300_001) == 200)
    }

    @Test func aQuietPeerStartsAgainAtTheBaseDelay() {
        let throttle = LoginThrottle()
        _ = throttle.failed(peer: "p", now: 0)
        _ = throttle.failed(peer: "p", now: 1_000)
        #expect(throttle.failed(peer: "p", now: 1_000 + 15 * 60_000) == 200)
    }

    @Test func thePeerAddressDropsThePort() {
        #expect(LoginThrottle.address(ofPeer: "127.0.0.1:5123") == "127.0.0.1")
        #expect(LoginThrottle.address(ofPeer: "[::1]:443") == "[::1]")
    }
}

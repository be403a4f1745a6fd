import Foundation
import ReleaseSelection
@testable import ModeldClient
import Testing

struct BackoffTests {
    @Test func delay_isBetweenZeroAndTheCappedExponential_butNeverBeforeRetryAfter() {
        let backoff = Backoff(base: 30, cap: 3600)
        #expect(backoff.delay(failures: 1, retryAfter: nil) { $0.upperBound } == 60)
        #expect(backoff.delay(failures: 10, retryAfter: nil) { $0.upperBound } == 3600)
        #expect(backoff.delay(failures: 3, retryAfter: nil) { $0.lowerBound } == 0)
        #expect(backoff.delay(failures: 1, retryAfter: 500) { $0.lowerBound } == 500)
        #expect(backoff.delay(failures: 1, retryAfter: 1e9) { $0.lowerBound } == 86_400)
    }

    @Test func retryAfter_secondsOrHTTPDate_clampedTo24Hours() {
        let now = Date(timeIntervalSince1970: 1_784_000_000)
        #expect(Backoff.retryAfter("5", now: now) == 5)
        #expect(Backoff.retryAfter("999999999", now: now) == 86_400)
        #expect(Backoff.retryAfter("Thu, 01 Jan 1970 00:00:10 GMT", now: Date(timeIntervalSince1970: 4)) == 6)
        #expect(Backoff.retryAfter("Sun, 06 Nov 1994 08:49:37 GMT", now: now) == 0, "a date in the past: no wait")
        #expect(Backoff.retryAfter("soon", now: now) == nil)
        #expect(Backoff.retryAfter(nil, now: now) == nil)
    }

    /// RFC 9110 §5.6.7: a recipient reads all three HTTP-date forms, not only IMF-fixdate.
    @Test(arguments: [
        "Sun, 06 Nov 1994 08:49:37 GMT",   // IMF-fixdate
        "Sunday, 06-Nov-94 08:49:37 GMT",  // RFC 850
        "Sun Nov  6 08:49:37 1994",        // asctime
    ])
    func retryAfter_readsEveryHTTPDateForm(_ text: String) {
        #expect(Backoff.retryAfter(text, now: Date(timeIntervalSince1970: 784_111_777 - 90)) == 90)
    }

    @Test func sdkVersions_compareNumerically_andRangesAreHalfOpen() throws {
        let v = try #require(SDKVersion("2.10"))
        #expect(try #require(SDKVersion("2.9")) < v)
        #expect(SDKVersion("2.3") == SDKVersion("2.3.0"))
        #expect(SDKVersion("1.2.3.4") == nil && SDKVersion("x") == nil && SDKVersion("") == nil)
        let release = ReleaseDocument(url: "http://h/models/a.bin", id: UUID().uuidString.lowercased(), sha256: String(repeating: "a", count: 64),
                              size: 1, sdkMin: "2.0", sdkMax: "2.10", channel: "stable")
        #expect(try #require(SDKVersion("2.9.9")).admits(release))
        #expect(!v.admits(release))
        #expect(release.fileExtension == "bin")
    }
}

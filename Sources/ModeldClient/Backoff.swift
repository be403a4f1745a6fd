import CivilTime
import Foundation

/// When to try again (SPEC §13): failure n waits `random(0, min(cap, base·2ⁿ))`, never earlier
/// than the server's `Retry-After` (clamped to 24 h); successful polls are jittered Omaha-style.
struct Backoff {
    static let retryAfterCap: TimeInterval = 86_400

    var base: TimeInterval
    var cap: TimeInterval

    /// The wait after the `failures`-th consecutive failure (1-based), given the server's hint.
    func delay(failures: Int, retryAfter: TimeInterval?, random: (ClosedRange<Double>) -> Double) -> TimeInterval {
        let exponential = min(cap, base * pow(2, Double(min(failures, 62))))
        let jittered = random(0...exponential)
        guard let retryAfter else { return jittered }
        return max(jittered, min(retryAfter, Self.retryAfterCap))
    }

    /// The next regular check: `interval`, and in one case out of five up to 20 % later, so
    /// installs do not march in step.
    static func nextPoll(interval: TimeInterval, random: (ClosedRange<Double>) -> Double) -> TimeInterval {
        random(0...1) < 0.2 ? interval * (1 + random(0...0.2)) : interval
    }

    /// `Retry-After` as delta-seconds or an HTTP-date in any of RFC 9110's three forms
    /// (§10.2.3, §5.6.7), in seconds from `now`.
    static func retryAfter(_ value: String?, now: Date) -> TimeInterval? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if value.allSatisfy({ $0.isASCII && $0.isNumber }) { return Double(value.prefix(9)).map { min($0, retryAfterCap) } }
        guard let date = HTTPDate.parse(value) else { return nil }
        return min(max(0, Double(date) - now.timeIntervalSince1970), retryAfterCap)
    }
}

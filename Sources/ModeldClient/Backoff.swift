import CivilTime
import Foundation

/// When to try again (SPEC §13): failure n waits `random(0, min(cap, base·2ⁿ))`, never earlier
/// than the server's `Retry-After` (clamped to 24 h); successful polls are jittered Omaha-style.
/// Only the server's own distress or a bad answer advances it (SPEC §13.2, ``advances(_:)``).
struct Backoff {
    static let retryAfterCap: TimeInterval = 86_400
    /// How long a user-initiated update still honours a `Retry-After` (SPEC §13.2).
    static let userInitiatedRetryAfterWindow: TimeInterval = 60

    /// Whether a failed check counts against the back-off: 5xx and 429 (the server asks for
    /// less traffic) and verification failures (a bad answer will not fix itself at once). An
    /// unreachable network costs the server nothing and ends when the network returns, and a
    /// condition holding the download back is no failure: neither is stored.
    static func advances(_ error: ModeldClientError) -> Bool {
        switch error {
        case .server(let status, _, _): status >= 500 || status == 429
        case .verification: true
        default: false
        }
    }

    /// Until when a check must wait, or nil to go now. A scheduled check waits out the stored
    /// back-off; a user-initiated one ignores it but still honours a `Retry-After` received in
    /// the last 60 s (up to then, never beyond the server's date).
    static func deferral(notBefore: Date?, retryAfter: RetryAfterRecord?, trigger: UpdateTrigger, now: Date) -> Date? {
        switch trigger {
        case .scheduled:
            guard let notBefore, notBefore > now else { return nil }
            return notBefore
        case .userInitiated:
            guard let retryAfter else { return nil }
            let until = min(retryAfter.until, retryAfter.received.addingTimeInterval(userInitiatedRetryAfterWindow))
            return until > now ? until : nil
        }
    }

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

/// A `Retry-After` the server sent with a failure: when it arrived and the date it named.
struct RetryAfterRecord: Codable, Equatable {
    var received: Date
    var until: Date
}

/// Who asked for an update check (SPEC §13.2).
public enum UpdateTrigger: Sendable, Equatable {
    /// The app's own schedule (a launch, a timer, a background refresh): waits out the back-off.
    case scheduled
    /// A person asked (a "check for updates" button): ignores the stored back-off, but not a
    /// `Retry-After` the server sent in the last 60 s.
    case userInitiated
}

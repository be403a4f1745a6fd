import Foundation
@testable import ModeldClient
import Testing

/// SPEC §13.2's back-off as tables: which failures advance it, and when a scheduled or a
/// user-initiated check may go.
struct BackoffRuleTests {
    static let failures: [(ModeldClientError, Bool)] = [
        (.server(status: 503, code: "unavailable", message: ""), true),
        (.server(status: 500, code: nil, message: ""), true),
        (.server(status: 429, code: "rate_limited", message: ""), true),
        (.verification("bad signature"), true),
        (.network("connection refused"), false),
        (.server(status: 404, code: "not_found", message: ""), false),
        (.server(status: 400, code: "invalid_parameter", message: ""), false),
        (.io("disk full"), false),
        (.insufficientStorage(needed: 2, available: 1), false),
        (.invalidConfiguration("x"), false),
    ]

    @Test(arguments: failures)
    func onlyServerDistressAndBadAnswers_advanceTheBackoff(error: ModeldClientError, advances: Bool) {
        #expect(Backoff.advances(error) == advances, "\(error)")
    }

    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static func at(_ seconds: TimeInterval) -> Date { now.addingTimeInterval(seconds) }

    /// (stored not-before, Retry-After (received, until), trigger, deferred until).
    static let gates: [(String, Date?, RetryAfterRecord?, UpdateTrigger, Date?)] = [
        ("nothing stored", nil, nil, .scheduled, nil),
        ("back-off passed", at(-1), nil, .scheduled, nil),
        ("backing off", at(300), nil, .scheduled, at(300)),
        ("user-initiated skips the back-off", at(300), nil, .userInitiated, nil),
        ("user-initiated honours a fresh Retry-After", at(120), RetryAfterRecord(received: at(-10), until: at(20)), .userInitiated, at(20)),
        ("…for 60 s after it arrived at most", at(3600), RetryAfterRecord(received: at(-10), until: at(3600)), .userInitiated, at(50)),
        ("…and not once it is 60 s old", at(3600), RetryAfterRecord(received: at(-61), until: at(3600)), .userInitiated, nil),
        ("…nor once its date passed", at(100), RetryAfterRecord(received: at(-5), until: at(-1)), .userInitiated, nil),
        ("scheduled waits for the stored date, Retry-After included", at(3600), RetryAfterRecord(received: at(-61), until: at(3600)), .scheduled, at(3600)),
    ]

    @Test(arguments: gates)
    func aCheckWaits_unlessAPersonAsked(name: String, notBefore: Date?, retryAfter: RetryAfterRecord?, trigger: UpdateTrigger, until: Date?) {
        #expect(Backoff.deferral(notBefore: notBefore, retryAfter: retryAfter, trigger: trigger, now: Self.now) == until, "\(name)")
    }

    @Test func conditionsBindModelBytesOnly() {
        let strict = DownloadConditions(allowsCellular: false, allowsExpensive: false, allowsConstrained: false)
        let none = NetworkAccess(cellular: false, expensive: false, constrained: false)
        for traffic in Traffic.allCases {
            let expected: NetworkAccess = switch traffic {
            case .updateCheck, .rules, .events: .unrestricted
            case .modelFile, .chunkList, .chunkRanges: none
            }
            #expect(strict.networkAccess(for: traffic) == expected, "\(traffic)")
            #expect(DownloadConditions().networkAccess(for: traffic) == .unrestricted, "\(traffic)")
        }
        #expect(DownloadConditions(allowsCellular: false).networkAccess(for: .modelFile)
                == NetworkAccess(cellular: false, expensive: true, constrained: true))
    }
}

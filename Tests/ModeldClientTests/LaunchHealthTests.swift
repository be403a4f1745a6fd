@testable import ModeldClient
import Testing

/// The crash-loop rule (docs/client.md, "Rollback rule") as a table: each row is what happened
/// to the active model across process lifetimes, and whether the next start rolls it back.
struct LaunchHealthTests {
    typealias E = LaunchHealth.Event

    static let table: [(String, [E], Bool)] = [
        ("installed, never launched, reopened many times", [.installed], false),
        ("launched, process lived past the window, twice", [.installed, .launched, .survived, .launched, .survived], false),
        ("launched but never used, each launch lived: never blocked", [.installed] + Array(repeating: [E.launched, .survived], count: 10).flatMap { $0 }, false),
        ("one early end", [.installed, .launched], false),
        ("two early ends in a row", [.installed, .launched, .launched], true),
        ("early, healthy, early: not in a row", [.installed, .launched, .launched, .survived, .launched], false),
        ("marked good, then early ends", [.installed, .launched, .markedGood, .launched, .launched, .launched], false),
        ("early ends of an older model do not count for the new one", [.launched, .launched, .installed], false),
        ("two early ends after a new install", [.markedGood, .installed, .launched, .launched], true),
    ]

    @Test(arguments: table)
    func rule(name: String, events: [E], rollsBack: Bool) {
        var health = LaunchHealth()
        for event in events { health.apply(event) }
        #expect(health.shouldRollBack(CrashLoopRule()) == rollsBack, "\(name)")
    }

    @Test func theNumberOfLaunchesIsConfigured() {
        var health = LaunchHealth()
        for _ in 0..<2 { health.apply(.launched) }
        #expect(!health.shouldRollBack(CrashLoopRule(launches: 3)))
        health.apply(.launched)
        #expect(health.shouldRollBack(CrashLoopRule(launches: 3)))
        #expect(LaunchHealth(unconfirmedLaunches: 1, isGood: false).shouldRollBack(CrashLoopRule(launches: 1)))
    }
}

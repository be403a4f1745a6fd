@testable import ModeldClient
import Testing

/// The crash-loop rule (SPEC §13.2, docs/client.md "Rollback rule") as a table of launch
/// sequences: each launch is what one process did with the active model, and the row says at
/// which start (if any) the client rolls the model back.
struct LaunchHealthTests {
    /// How one process of the app went.
    enum Launch {
        /// Loaded the model, then crashed or was SIGKILLed in the foreground.
        case crash
        /// Loaded the model, reached the background, and was killed there by the system.
        case backgroundThenKill
        /// Loaded the model, reached the background, came back and crashed.
        case backgroundThenCrash
        /// Loaded the model and ended cleanly (`close()`, released, terminated).
        case clean
        /// Loaded the model, marked it good, then crashed.
        case markGoodThenCrash
        /// Never loaded the model (opened the cache for an update only), then crashed.
        case unusedCrash
        /// Never loaded the model, ended cleanly.
        case unusedClean
        /// A new model was installed during this process (which then crashed).
        case installNewThenCrash
    }

    /// Runs `launches` and returns the 0-based start at which the model was rolled back.
    static func rollbackStart(_ launches: [Launch], rule: CrashLoopRule = CrashLoopRule()) -> Int? {
        var stored = LaunchHealth()
        func send(_ signal: LaunchLifecycle.Signal, _ process: inout LaunchLifecycle) {
            if let next = process.handle(signal, health: stored) { stored = next }
        }
        for (start, launch) in launches.enumerated() {
            if stored.shouldRollBack(rule) { return start }
            var process = LaunchLifecycle()
            switch launch {
            case .crash: send(.modelLoaded, &process)
            case .backgroundThenKill, .backgroundThenCrash:
                send(.modelLoaded, &process)
                send(.backgrounded, &process)
                send(.modelLoaded, &process)  // back in the foreground: the same launch, not counted again
            case .clean:
                send(.modelLoaded, &process)
                send(.endedCleanly, &process)
            case .markGoodThenCrash:
                send(.modelLoaded, &process)
                stored.apply(.markedGood)
            case .unusedCrash: break
            case .unusedClean: send(.endedCleanly, &process)
            case .installNewThenCrash:
                send(.modelLoaded, &process)
                stored.apply(.installed)
            }
        }
        return stored.shouldRollBack(rule) ? launches.count : nil
    }

    static let table: [(String, [Launch], Int?)] = [
        ("two crashes in a row: rolled back at the third start", [.crash, .crash], 2),
        ("one crash", [.crash], nil),
        ("crash, clean, crash: not in a row", [.crash, .clean, .crash], nil),
        ("crash, background-kill, crash", [.crash, .backgroundThenKill, .crash], nil),
        ("suspended and killed by the system, many times: never", Array(repeating: .backgroundThenKill, count: 10), nil),
        ("background, back, crash: that launch was healthy", [.backgroundThenCrash, .backgroundThenCrash, .backgroundThenCrash], nil),
        ("clean ends only", [.clean, .clean, .clean], nil),
        ("marked good, then crashes: reportBad's job, not this rule", [.markGoodThenCrash, .crash, .crash, .crash], nil),
        ("processes that never load the model say nothing", [.unusedCrash, .unusedCrash, .unusedCrash], nil),
        ("…and do not break a streak either way", [.crash, .unusedClean, .crash], 3),
        ("crash, crash after an unused crash", [.crash, .unusedCrash, .crash], 3),
        ("crashes of an older model do not count for the new one", [.crash, .installNewThenCrash], nil),
        ("two crashes of the new model after an install", [.clean, .installNewThenCrash, .crash, .crash], 4),
        ("relaunch after two crashes rolls back before loading", [.crash, .crash, .clean], 2),
    ]

    @Test(arguments: table)
    func rule(name: String, launches: [Launch], rollbackAt: Int?) {
        #expect(Self.rollbackStart(launches) == rollbackAt, "\(name)")
    }

    @Test func theNumberOfLaunchesIsConfigured_andOffNeverRollsBack() {
        #expect(Self.rollbackStart([.crash, .crash], rule: CrashLoopRule(launches: 3)) == nil)
        #expect(Self.rollbackStart([.crash, .crash, .crash], rule: CrashLoopRule(launches: 3)) == 3)
        #expect(Self.rollbackStart([.crash], rule: CrashLoopRule(launches: 1)) == 1)
        #expect(Self.rollbackStart(Array(repeating: .crash, count: 20), rule: .off) == nil)
    }

    @Test func aProcessWritesOnlyWhatChanges() {
        var process = LaunchLifecycle()
        let counted = process.handle(.modelLoaded, health: LaunchHealth())
        #expect(counted == LaunchHealth(unconfirmedLaunches: 1, isGood: false))
        #expect(process.handle(.modelLoaded, health: counted!) == nil, "a second load in the process is the same launch")
        #expect(process.handle(.backgrounded, health: counted!) == LaunchHealth())
        #expect(process.handle(.endedCleanly, health: LaunchHealth()) == nil, "settled once")
        var good = LaunchLifecycle()
        #expect(good.handle(.modelLoaded, health: LaunchHealth(unconfirmedLaunches: 0, isGood: true)) == nil)
    }
}
